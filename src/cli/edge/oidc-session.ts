/**
 * `svc edge login` over the controller's own OIDC provider, as the public SDKs log in: an authorization request with
 * PKCE (S256), the credential posted to the login endpoint of the method (`/oidc/login/password` with username and
 * password, or `/oidc/login/cert` over mutual TLS with the identity file's key), a TOTP code at `/oidc/login/totp`
 * when the identity owes one, the controller's redirect read (never visited) for the code, and the code exchanged for
 * an access token and a refresh token. Commands send the access token as `Authorization: Bearer`; one whose token is
 * about to expire refreshes it first (refresh grant) and saves the new pair. The deprecated legacy session is not
 * used (decision 0075).
 */
import { refusedError } from '../cli-error.js';
import { describeAnswer, send, type HttpAnswer } from './http.js';
import { authorizationRequest, OIDC_CLIENT, OIDC_REDIRECT_URI } from '../../sdk/oidc-login.js';

// The client id, the redirect URI and the PKCE request are the SDK's (one OIDC login, two callers).
const CLIENT_ID = OIDC_CLIENT;
const REDIRECT_URI = OIDC_REDIRECT_URI;
/** A token this close to its end is refreshed before a command uses it. */
export const REFRESH_BEFORE_MS = 60_000;

export interface OidcTokens {
  accessToken: string;
  refreshToken?: string;
  /** When the access token ends (ISO time). */
  expiresAt: string;
}

export interface OidcCredential {
  username?: string;
  password?: string;
  /** A client certificate and key (PEM), for certificate login. */
  cert?: string;
  key?: string;
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function locationOf(answer: HttpAnswer, base: URL): URL | undefined {
  const value = answer.headers.location;
  return typeof value === 'string' ? new URL(value, base) : undefined;
}

/** An OIDC answer in words: the OAuth error shape (`error`, `error_description`), else the Edge API's envelope. */
function describeOidc(answer: HttpAnswer): string {
  const body = answer.body as { error?: unknown; error_description?: unknown } | undefined;
  if (typeof body?.error === 'string') return `HTTP ${answer.status} ${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}`;
  return describeAnswer(answer);
}

function tokensOf(answer: HttpAnswer, who: string, step: string): OidcTokens {
  const body = answer.body as { access_token?: unknown; refresh_token?: unknown; expires_in?: unknown } | undefined;
  if (answer.status !== 200 || typeof body?.access_token !== 'string') throw refusedError(`could not log in as ${who}: ${step} was refused: ${describeOidc(answer)}`);
  const seconds = Number(body.expires_in) > 0 ? Number(body.expires_in) : 1800;
  return {
    accessToken: body.access_token,
    ...(typeof body.refresh_token === 'string' ? { refreshToken: body.refresh_token } : {}),
    expiresAt: new Date(Date.now() + seconds * 1000).toISOString(),
  };
}

/**
 * Logs in at `origin` (trusting only `ca`) and returns the tokens. `totp` is asked only when the identity owes a code;
 * a factor other than TOTP cannot be answered here and is refused naming it.
 */
export async function oidcLogin(origin: string, ca: string, who: string, credential: OidcCredential, totp: () => Promise<string>): Promise<OidcTokens> {
  const method = credential.cert ? 'cert' : 'password';
  const tls = { ca, cert: credential.cert, key: credential.key };
  const { url: authorize, verifier, state } = authorizationRequest(new URL('/oidc/authorization', origin), method);
  const started = await send(authorize, { ...tls });
  const loginPage = locationOf(started, authorize);
  const authRequestId = loginPage?.searchParams.get('authRequestID');
  if (started.status !== 302 || !authRequestId) throw refusedError(`could not log in as ${who}: the authorization request was refused: ${describeOidc(started)}`);

  const body = credential.cert ? { authRequestId } : { authRequestId, username: credential.username, password: credential.password };
  let answer = await send(new URL(`/oidc/login/${method}`, origin), { method: 'POST', ...tls, body });
  const owed = (answer.body as { authQueries?: { typeId?: string; format?: string }[] } | undefined)?.authQueries;
  if (answer.status === 200 && Array.isArray(owed)) {
    const other = owed.filter((q) => q.typeId !== 'MFA' && q.typeId !== 'TOTP');
    if (other.length > 0) throw refusedError(`could not log in as ${who}: the controller also asks for ${other.map((q) => q.typeId ?? 'an unnamed query').join(', ')}, which svc edge login cannot answer; nothing was saved`);
    answer = await send(new URL('/oidc/login/totp', origin), { method: 'POST', ...tls, body: { authRequestId, code: await totp() } });
    if (answer.status !== 302) throw refusedError(`could not log in as ${who}: the TOTP code was refused: ${describeOidc(answer)}; nothing was saved`);
  }
  if (answer.status !== 302) throw refusedError(`could not log in as ${who}: ${describeOidc(answer)}`);

  // The controller's own callback, then the redirect URI carrying the code.
  let next = locationOf(answer, authorize);
  for (let hops = 0; next && next.origin === authorize.origin && hops < 3; hops++) {
    const hop = await send(next, { ...tls });
    next = hop.status === 302 ? locationOf(hop, next) : undefined;
  }
  const code = next?.searchParams.get('code');
  if (!next || !code || next.searchParams.get('state') !== state) {
    throw refusedError(`could not log in as ${who}: the controller's answer carried no authorization code (${next?.searchParams.get('error_description') ?? next?.searchParams.get('error') ?? 'no reason given'})`);
  }
  const form = new URLSearchParams({ grant_type: 'authorization_code', client_id: CLIENT_ID, redirect_uri: REDIRECT_URI, code, code_verifier: verifier });
  return tokensOf(await send(new URL('/oidc/token', origin), { method: 'POST', ...tls, headers: FORM, body: form.toString() }), who, 'the code exchange');
}

/** New tokens for a refresh token (which is spent); undefined when the controller no longer takes it. */
export async function refreshOidcTokens(origin: string, ca: string, refreshToken: string): Promise<OidcTokens | undefined> {
  const form = new URLSearchParams({ grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token: refreshToken });
  const answer = await send(new URL('/oidc/token', origin), { method: 'POST', ca, headers: FORM, body: form.toString() });
  if (answer.status === 400 || answer.status === 401) return undefined;
  return tokensOf(answer, 'the saved login', 'the refresh');
}

/** Revokes the refresh token (RFC 7009) at logout; failing changes nothing locally. */
export async function revokeOidcTokens(origin: string, ca: string, refreshToken: string): Promise<void> {
  const form = new URLSearchParams({ token: refreshToken, token_type_hint: 'refresh_token', client_id: CLIENT_ID });
  await send(new URL('/oidc/revoke', origin), { method: 'POST', ca, headers: FORM, body: form.toString() }).catch(() => undefined);
}

/** Whether tokens ending at `expiresAt` should be refreshed before use. */
export function dueForRefresh(expiresAt: string, now = Date.now()): boolean {
  return Date.parse(expiresAt) - now < REFRESH_BEFORE_MS;
}
