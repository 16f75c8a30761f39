/**
 * OIDC login with the identity's certificate, as the public SDKs do it (spec "OIDC flow"; reference facts
 * openziti-edge-api-facts.md, authorization code + PKCE): the authorization request is made presenting the client
 * certificate with `method=cert`, the auth request id is posted to the cert login endpoint over the same mutual TLS,
 * the controller's callback is followed to the redirect URI carrying the code (nothing listens there: the redirect
 * is read, never visited), and the code is exchanged with the PKCE verifier. Refresh uses the refresh token.
 */
import { createHash, randomBytes } from 'node:crypto';
import { SdkError } from './errors.js';
import { answerReason, type ControllerHttp, type HttpAnswer } from './controller-http.js';

/** The controller's OIDC client id. */
export const OIDC_CLIENT = 'svc';
/** Matches the controller's default redirect URI patterns (`http://127.0.0.1:*\/auth/callback`). */
export const OIDC_REDIRECT_URI = 'http://127.0.0.1:20280/auth/callback';

export interface AuthorizationRequest {
  /** The authorization endpoint with the request's parameters. */
  url: URL;
  /** The PKCE verifier the code exchange presents, and the state the redirect must carry back. */
  verifier: string;
  state: string;
}

/**
 * An authorization request of the native client with PKCE (S256) and a fresh state, for login `method` (`cert`,
 * `password`): the first step of every OIDC login, the SDK's and `svc edge login`'s.
 */
export function authorizationRequest(endpoint: URL, method: string): AuthorizationRequest {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const url = new URL(endpoint);
  const query = {
    client_id: OIDC_CLIENT,
    response_type: 'code',
    scope: 'openid offline_access',
    redirect_uri: OIDC_REDIRECT_URI,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state,
    method,
  };
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return { url, verifier, state };
}

export interface OidcTokens {
  accessToken: string;
  refreshToken?: string;
  /** Seconds the access token lives, as the token endpoint said. */
  expiresIn: number;
}

interface Endpoints {
  authorization: URL;
  token: URL;
}

const location = (answer: HttpAnswer, base: URL): URL | undefined => {
  const value = answer.headers.location;
  return typeof value === 'string' ? new URL(value, base) : undefined;
};

function refused(step: string, answer: HttpAnswer): SdkError {
  const code = answer.status === 401 || answer.status === 403 || answer.status === 400 ? 'NOT_AUTHENTICATED' : 'CONTROLLER_UNREACHABLE';
  return new SdkError(code, `OIDC login with the certificate failed at ${step}: ${answerReason(answer)}`);
}

async function discover(http: ControllerHttp, oidcBase: URL): Promise<Endpoints> {
  const answer = await http(new URL(`${oidcBase.pathname.replace(/\/$/, '')}/.well-known/openid-configuration`, oidcBase));
  const doc = answer.json;
  if (answer.status !== 200 || typeof doc?.authorization_endpoint !== 'string' || typeof doc?.token_endpoint !== 'string') throw refused('discovery', answer);
  return { authorization: new URL(doc.authorization_endpoint), token: new URL(doc.token_endpoint) };
}

function tokensOf(answer: HttpAnswer, step: string): OidcTokens {
  const j = answer.json;
  if (answer.status !== 200 || typeof j?.access_token !== 'string') throw refused(step, answer);
  return { accessToken: j.access_token, ...(typeof j.refresh_token === 'string' ? { refreshToken: j.refresh_token } : {}), expiresIn: Number(j.expires_in) || 1800 };
}

export interface OidcClient {
  /** Logs in with the client certificate the requester presents. */
  login(): Promise<OidcTokens>;
  /** Exchanges a refresh token for new tokens (the old refresh token is spent). */
  refresh(refreshToken: string): Promise<OidcTokens>;
}

/** An OIDC client of the controller at `oidcBase`; the discovery document is read once, on first use. */
export function oidcClient(http: ControllerHttp, oidcBase: URL): OidcClient {
  let endpoints: Promise<Endpoints> | undefined;
  const known = () => {
    endpoints ??= discover(http, oidcBase).catch((error) => {
      endpoints = undefined;
      throw error;
    });
    return endpoints;
  };
  return {
    login: async () => certLogin(http, await known()),
    async refresh(refreshToken) {
      const answer = await http((await known()).token, { method: 'POST', form: { grant_type: 'refresh_token', client_id: OIDC_CLIENT, refresh_token: refreshToken } });
      return tokensOf(answer, 'the refresh');
    },
  };
}

async function certLogin(http: ControllerHttp, endpoints: Endpoints): Promise<OidcTokens> {
  const { url: authorize, verifier, state } = authorizationRequest(endpoints.authorization, 'cert');
  const first = await http(authorize);
  const loginUrl = location(first, authorize);
  const authRequestId = loginUrl?.searchParams.get('authRequestID');
  if (first.status !== 302 || !loginUrl || !authRequestId) throw refused('the authorization request', first);
  const login = await http(new URL(loginUrl.pathname, loginUrl), { method: 'POST', json: { authRequestId } });
  if (login.status === 200 && Array.isArray(login.json?.authQueries)) {
    const what = login.json.authQueries.map((q: { typeId?: string }) => q.typeId ?? 'a factor').join(', ');
    throw new SdkError('NOT_AUTHENTICATED', `OIDC login with the certificate needs more factors (${what}), which the SDK cannot answer`);
  }
  let next = location(login, loginUrl);
  if (login.status !== 302 || !next) throw refused('the certificate login', login);
  // The controller's own callback, then the redirect URI with the code.
  for (let hops = 0; next.href.startsWith(loginUrl.origin) && hops < 3; hops++) {
    const hop = await http(next);
    const to = location(hop, next);
    if (hop.status !== 302 || !to) throw refused('the login callback', hop);
    next = to;
  }
  const code = next.searchParams.get('code');
  if (!code || next.searchParams.get('state') !== state) {
    throw new SdkError('NOT_AUTHENTICATED', `OIDC login with the certificate failed: the controller redirected to ${next.origin}${next.pathname} without a code for this request (${next.searchParams.get('error_description') ?? next.searchParams.get('error') ?? 'no reason given'})`);
  }
  const exchanged = await http(endpoints.token, { method: 'POST', form: { grant_type: 'authorization_code', client_id: OIDC_CLIENT, redirect_uri: OIDC_REDIRECT_URI, code, code_verifier: verifier } });
  return tokensOf(exchanged, 'the code exchange');
}
