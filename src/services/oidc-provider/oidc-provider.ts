/**
 * The OIDC provider's use cases (spec: OIDC flow, OIDC authorization request states): start an authorization
 * request, log it in with a primary credential (reusing the legacy credential checks and lockout), redeem the code,
 * rotate refresh tokens, end sessions and revoke tokens. Throws OAuthError for protocol failures and ApiError
 * (INVALID_AUTH and friends) for refused credentials. Knows nothing of HTTP. The token grants' own rules are in
 * grants/, one file per grant (decision 0018); this file issues the tokens they share.
 */
import type { RedirectUriPattern } from '../../config/types.js';
import { hashToken } from '../../crypto/secrets.js';
import { OIDC_CLIENT_ID, scopeList, type OidcAuthRequest, type OidcRefreshToken, type OidcSession } from '../../domain/oidc.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { OAuthError } from '../../errors/oauth-error.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import type { OidcRepository } from '../../persistence/repositories/oidc.js';
import type { OutstandingFactor } from '../../policy/secondary-factors.js';
import { redirectUriAllowed } from '../../policy/redirect-uri-match.js';
import type { Clock } from '../../shared/clock.js';
import { newEntityId, newSecretToken, newUuid } from '../../shared/random.js';
import type { AuthenticationRequest, AuthenticationService } from '../authentication/authentication.js';
import { createPrincipalLoader } from '../authentication/principal.js';
import { createAuthorizationCodeGrant } from './grants/authorization-code.js';
import { createRefreshTokenGrant } from './grants/refresh-token.js';
import type { AuthRequestSeal } from './oidc-auth-request-seal.js';
import type { AuthorizationCodes } from './oidc-codes.js';
import type { OidcTokenSigner } from './oidc-tokens.js';
import type { SessionConfigTypes } from '../sessions/config-types.js';
import { NO_EXTENSION, type CertExtensionFlags } from '../../domain/authenticator.js';

/** Where a request arrived: its issuer and the binding's registered redirect URIs. */
export interface OidcBindPoint {
  issuer: string;
  redirectUris: readonly RedirectUriPattern[];
}

export type Params = Record<string, string | undefined>;

export interface TokenResponse {
  access_token: string;
  id_token: string;
  refresh_token?: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

export interface OidcProviderService {
  /**
   * RFC 6749 §4.1.1: validates an authorization request and returns its public id (the request, sealed: nothing is
   * stored before a primary login succeeds) and the login method.
   */
  authorize(params: Params, where: OidcBindPoint, hasClientCertificate: boolean): Promise<{ authRequestId: string; login: 'username' | 'cert' | 'ext-jwt' }>;
  /** A request still waiting for its login (started or partially authenticated); OAuthError otherwise. */
  pendingAuthRequest(id: string | undefined): Promise<OidcAuthRequest>;
  /**
   * The request a public id stands for as sealed at the authorization endpoint, without reading the store (OAuthError
   * when unknown or expired): for a primary login, which learns from its own write whether the request was logged in
   * before (`login`), so the common login spares a read.
   */
  sealedAuthRequest(id: string | undefined): OidcAuthRequest;
  /**
   * The controller-hosted callback (`/oidc/authorize/callback?id=`): the redirect to the client with the code
   * (RFC 6749 §4.1.2, RFC 9207 `iss`). `id` is the code a primary login minted, or, after secondary factors, the
   * request, which gets its code here once.
   */
  callback(id: string | undefined): Promise<string>;
  /**
   * Primary login. With nothing outstanding: the redirect to the client with the code (RFC 6749 §4.1.2, RFC 9207
   * `iss`). With a secondary factor outstanding: the request, now partially authenticated, and what it still needs.
   * `request` is the one `pendingAuthRequest` or `sealedAuthRequest` returned for the login's id; a sealed one found
   * already stored is taken as the store has it (partially authenticated: as above; further on: refused).
   */
  login(request: OidcAuthRequest, credentials: AuthenticationRequest): Promise<LoginOutcome>;
  /** The authorization_code grant (RFC 6749 §4.1.3, RFC 7636 §4.6). */
  authorizationCode(params: Params): Promise<TokenResponse>;
  /** The refresh_token grant with rotation (RFC 6749 §6). */
  refreshToken(params: Params): Promise<TokenResponse>;
  /** Ends the session named by an ID token or access token (RP-Initiated Logout 1.0 §2). */
  endSession(hint: string | undefined): Promise<void>;
  /** Ends a session by its id (`z_asid`), e.g. on DELETE current-api-session with an access token. */
  endSessionById(sessionId: string): Promise<void>;
  /** The JWKS that verifies every token of every controller sharing the store (served at /oidc/keys). */
  jwks(): ReturnType<OidcTokenSigner['jwks']>;
  /** RFC 7009 §2.1: revokes the session of a refresh or access token; unknown tokens are ignored. */
  revoke(token: string | undefined): Promise<void>;
}

/**
 * What a login step leads to (spec: OIDC authorization request states). With every factor answered, the user agent
 * goes to the controller's callback, which issues the code (the reference provider's hop: SDKs follow the first
 * redirect on the controller and expect a second one carrying the code).
 */
export type LoginOutcome =
  | { readonly kind: 'authenticated'; readonly location: string }
  | { readonly kind: 'partially_authenticated'; readonly request: OidcAuthRequest; readonly outstanding: readonly OutstandingFactor[] };

const AUTH_REQUEST_TTL_MS = 10 * 60_000;
/**
 * Longest accepted values of the free-form authorization parameters. The sealed id carries them, so they bound its
 * length (it must fit the login endpoints' 8 KiB parameter limit); real clients send a few dozen characters.
 */
const MAX_STATE = 1024;
const MAX_NONCE = 512;
const MAX_SCOPE = 512;
// RFC 7636 §4.2: an S256 challenge is always 43 base64url characters.
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** RFC 6749 §2.1, §3.2.1: the one public client identifies itself by client_id. */
function checkClient(params: Params): Params {
  if (params.client_id !== OIDC_CLIENT_ID) throw new OAuthError('invalid_client', 'unknown client_id');
  return params;
}

/**
 * Where a fully authenticated request sends the user agent: the callback on the bind point it started at, with the
 * code (decision 0046) or, after secondary factors, the request's id.
 */
export function callbackLocation(issuer: string, id: string): string {
  return `${issuer}/authorize/callback?id=${encodeURIComponent(id)}`;
}

/** The redirect back to the client with the code (RFC 6749 §4.1.2, with RFC 9207 `iss`). */
export function clientRedirect(request: Pick<OidcAuthRequest, 'redirectUri' | 'state' | 'issuer'>, code: string): string {
  const target = new URL(request.redirectUri);
  // Set on a copy and written back once: each set on `target.searchParams` writes the whole query into the URL again.
  const query = new URLSearchParams(target.search);
  query.set('code', code);
  if (request.state !== null) query.set('state', request.state);
  query.set('iss', request.issuer);
  target.search = query.toString();
  return target.toString();
}

const scopes = scopeList;

export function createOidcProviderService(deps: {
  oidc: OidcRepository;
  /** Mints and opens the sealed authorization codes (decision 0046). */
  codes: AuthorizationCodes;
  /** Read through the authentication cache (auth-lookups.ts), as every request's identity is. */
  identities: Pick<IdentityRepository, 'findById'>;
  authentication: AuthenticationService;
  tokens: OidcTokenSigner;
  seal: AuthRequestSeal;
  /** Seals a rotated refresh token's successor for the grace window. */
  secrets: SecretBox;
  clock: Clock;
  refreshTokenDurationMs: number;
  accessTokenDurationMs: number;
  /** Resolves the config types a login asked for to ids, as a legacy session's (`z_ct`). */
  configTypes: Pick<SessionConfigTypes, 'resolve'>;
  /** The certificate extension flags of a session's login, as its tokens carry them (`z_ice`, `z_cer`, `z_ckrr`). */
  certFlags?: (session: OidcSession) => Promise<CertExtensionFlags>;
  /** The fingerprints of the certificates the session may present to a router, as its access tokens list them (`z_cfs`). */
  certFingerprints?: (session: OidcSession, now: Date) => Promise<string[]>;
}): OidcProviderService {
  const { oidc, identities, authentication, tokens, seal, clock } = deps;
  const principals = createPrincipalLoader({ identities, clock });

  /** The request a public id stands for as sealed at the authorization endpoint, unless unknown or expired. */
  function sealedAuthRequest(handle: string | undefined): OidcAuthRequest {
    const sealed = handle ? seal.open(handle) : undefined;
    if (!sealed || sealed.expiresAt.getTime() <= clock.now().getTime()) {
      throw new OAuthError('invalid_request', 'the auth request is unknown or has expired; start again at the authorization endpoint');
    }
    return sealed;
  }

  /** The request a public id stands for, as the store has it once logged in, else as sealed (started). */
  async function authRequestOf(handle: string | undefined): Promise<OidcAuthRequest> {
    const sealed = sealedAuthRequest(handle);
    const stored = await oidc.findAuthRequest(sealed.id);
    return stored ? { ...stored, handle: sealed.handle } : sealed;
  }

  const alreadyLoggedIn = () => new OAuthError('invalid_request', 'the auth request has already been logged in');

  async function pendingAuthRequest(id: string | undefined): Promise<OidcAuthRequest> {
    const request = await authRequestOf(id);
    if (request.status !== 'started' && request.status !== 'partially_authenticated') throw alreadyLoggedIn();
    return request;
  }

  /**
   * A primary login on a partially authenticated request never answers a secondary factor: the request stays partial
   * with what it still needs. Another identity may not take over a request bound to the first one.
   */
  function primaryOnPartial(request: OidcAuthRequest, identityId: string): LoginOutcome {
    if (request.identityId !== identityId) throw new OAuthError('invalid_request', 'the auth request belongs to another identity; start again');
    return { kind: 'partially_authenticated', request, outstanding: request.outstanding };
  }

  /** The identity a code exchange or a refresh issues tokens to, if it may still act (RFC 6749 §5.2: invalid_grant). */
  async function activeIdentity(identityId: string) {
    const principal = await principals.load(identityId);
    if (!principal.ok) throw new OAuthError('invalid_grant', 'the identity may no longer log in');
    return principal.identity;
  }

  /** A new refresh token's value, its SHA-256 and the parts of its record that do not depend on its session. */
  function newRefreshSecret(now: Date) {
    const value = newSecretToken();
    const record = { id: newEntityId(), createdAt: now, expiresAt: new Date(now.getTime() + deps.refreshTokenDurationMs) };
    return { value, record, hash: hashToken(value) };
  }

  /** A new refresh token of `session`: its value for the client and its record (stored by SHA-256 only). */
  function newRefreshToken(session: OidcSession, now: Date) {
    const { value, record, hash } = newRefreshSecret(now);
    const token: OidcRefreshToken = { ...record, sessionId: session.id, status: 'active', rotatedAt: null, successorSealed: null };
    return { value, record: token, hash };
  }

  /**
   * Signs a token set for a session. With offline_access it carries a refresh token: `refresh` when the caller
   * already stored one (a rotation), else a new one stored here (a code exchange).
   */
  async function tokenSet(session: OidcSession, nonce: string | null, refresh?: string): Promise<TokenResponse> {
    const now = clock.now();
    const identity = await activeIdentity(session.identityId);
    const [cert, certFingerprints] = await Promise.all([
      deps.certFlags ? deps.certFlags(session) : NO_EXTENSION,
      deps.certFingerprints ? deps.certFingerprints(session, now) : [],
    ]);
    // Signed in place for an ES256 key, on the thread pool for a slower one, side by side (crypto/jws.ts).
    const [access, idToken] = await Promise.all([
      tokens.signAccess({ issuer: session.issuer, identity, session, cert, certFingerprints, now }),
      tokens.signId({ issuer: session.issuer, identity, session, nonce, now }),
    ]);
    const response: TokenResponse = {
      access_token: access.token,
      id_token: idToken,
      token_type: 'Bearer',
      expires_in: Math.floor(deps.accessTokenDurationMs / 1000),
      scope: session.scope,
    };
    // Spec: OIDC tokens; refresh tokens only with `offline_access` (OpenID Connect Core 1.0 §11).
    if (scopes(session.scope).includes('offline_access')) {
      if (refresh === undefined) {
        const fresh = newRefreshToken(session, now);
        await oidc.insertRefreshToken(fresh.record, fresh.hash);
        refresh = fresh.value;
      }
      response.refresh_token = refresh;
    }
    return response;
  }

  // The grants' logic (grants/): what a code or a refresh token is worth, checked before tokenSet issues.
  const grantDeps = { oidc, codes: deps.codes, clock, secrets: deps.secrets, tokenSet, newRefreshToken, newRefreshSecret };
  const authorizationCode = createAuthorizationCodeGrant(grantDeps);
  const refreshToken = createRefreshTokenGrant(grantDeps);

  /** The session a token we signed names: `z_asid` in access tokens, `sid` in ID tokens. */
  async function sessionOfJwt(token: string): Promise<string | undefined> {
    const claims = await tokens.verify(token, clock.now(), { allowExpired: true });
    const id = claims.z_asid ?? claims.sid;
    return typeof id === 'string' ? id : undefined;
  }

  return {
    async authorize(params, where, hasClientCertificate) {
      // Before the redirect URI is trusted, errors are shown to the user, never redirected (RFC 6749 §4.1.2.1).
      if (params.client_id !== OIDC_CLIENT_ID) throw new OAuthError('invalid_client', `unknown client_id; the only client is '${OIDC_CLIENT_ID}'`);
      if (!params.redirect_uri || !redirectUriAllowed(params.redirect_uri, where.redirectUris)) {
        throw new OAuthError('invalid_request', 'redirect_uri is missing or not registered for this client');
      }
      const redirect = { redirect: true };
      if (params.response_type !== 'code') throw new OAuthError('unsupported_response_type', 'only response_type=code is supported', redirect);
      const scope = params.scope ?? '';
      if (!scopes(scope).includes('openid')) throw new OAuthError('invalid_scope', "scope must include 'openid'", redirect);
      // RFC 7636 §4.4.1 and OAuth 2.0 Security BCP: PKCE is required for this public client, and only S256.
      if (!params.code_challenge || !CHALLENGE.test(params.code_challenge)) {
        throw new OAuthError('invalid_request', 'code_challenge (S256, 43 base64url characters) is required', redirect);
      }
      if (params.code_challenge_method !== 'S256') throw new OAuthError('invalid_request', 'code_challenge_method must be S256', redirect);
      const method = params.method ?? (hasClientCertificate ? 'cert' : 'password');
      if (method !== 'password' && method !== 'cert' && method !== 'ext-jwt') {
        throw new OAuthError('invalid_request', `login method '${method}' is not supported (password, cert, ext-jwt)`, redirect);
      }
      if ((params.state?.length ?? 0) > MAX_STATE) throw new OAuthError('invalid_request', `state is longer than ${MAX_STATE} characters`, redirect);
      if ((params.nonce?.length ?? 0) > MAX_NONCE) throw new OAuthError('invalid_request', `nonce is longer than ${MAX_NONCE} characters`, redirect);
      if (scope.length > MAX_SCOPE) throw new OAuthError('invalid_request', `scope is longer than ${MAX_SCOPE} characters`, redirect);
      const now = clock.now();
      const handle = seal.seal({
        id: '',
        handle: '',
        clientId: OIDC_CLIENT_ID,
        redirectUri: params.redirect_uri,
        scope: scopes(scope).join(' '),
        state: params.state ?? null,
        nonce: params.nonce ?? null,
        codeChallenge: params.code_challenge,
        method: 'S256',
        issuer: where.issuer,
        identityId: null,
        amr: [],
        status: 'started',
        outstanding: [],
        codeExpiresAt: null,
        apiSessionId: newUuid(),
        authTime: null,
        configTypes: [],
        createdAt: now,
        expiresAt: new Date(now.getTime() + AUTH_REQUEST_TTL_MS),
      });
      return { authRequestId: handle, login: method === 'password' ? 'username' : method };
    },

    pendingAuthRequest,

    sealedAuthRequest,

    async login(request, credentials) {
      // Refused credentials throw INVALID_AUTH here and leave the request as it was, so the user may retry.
      const { identity, authenticatorId, caId } = await authentication.verifyPrimary(credentials);
      if (request.status === 'partially_authenticated') return primaryOnPartial(request, identity.id);
      const now = clock.now();
      const outstanding = await authentication.secondaryFactors(identity);
      const loggedIn: OidcAuthRequest = {
        ...request,
        identityId: identity.id,
        amr: [credentials.method],
        authTime: now,
        configTypes: await deps.configTypes.resolve(credentials.configTypes ?? []),
        // Kept on the session as a legacy session keeps them: its view, its certificate extension flags (decision 0038).
        authenticatorId,
        ipAddress: credentials.ipAddress,
        // The third-party CA the login chain reached: withdrawing it revokes the session (decision 0057).
        caId: caId ?? null,
        // Spec: started -> partially authenticated while a factor is outstanding (no code exists, so the token
        // endpoint cannot be reached), else on to the callback.
        status: outstanding.length > 0 ? 'partially_authenticated' : 'authenticated',
        outstanding,
      };
      // With nothing outstanding the login writes nothing: its code carries the grant, and redeeming it stores the
      // session (decision 0046). A second login on the same request is a login of its own, with a session of its own.
      if (outstanding.length === 0) {
        const code = deps.codes.mint(loggedIn, newUuid(), now);
        return { kind: 'authenticated', location: callbackLocation(loggedIn.issuer, code.value) };
      }
      // Expired requests are deleted by the housekeeping sweep (services/housekeeping), not on the login path.
      if (!(await oidc.insertAuthRequest(loggedIn))) {
        // Logged in before (a request read from its sealed id alone) or meanwhile (a login racing this one).
        const stored = await oidc.findAuthRequest(request.id);
        if (stored?.status === 'partially_authenticated') return primaryOnPartial({ ...stored, handle: request.handle }, identity.id);
        throw alreadyLoggedIn();
      }
      return { kind: 'partially_authenticated', request: loggedIn, outstanding };
    },

    async callback(id) {
      const now = clock.now();
      // A code minted at the primary login: the redirect needs nothing from the store.
      const minted = id ? deps.codes.open(id) : undefined;
      if (minted) {
        if (minted.expiresAt.getTime() <= now.getTime()) throw new OAuthError('invalid_request', 'the login has expired; start again at the authorization endpoint');
        return clientRedirect(minted, minted.value);
      }
      // A request that answered its secondary factors: its code is issued once, in the statement that reads it; only a
      // request that was not waiting for its code is read again, to say why.
      const sealed = sealedAuthRequest(id);
      const issued = await oidc.issueCode(sealed.id);
      if (issued) return clientRedirect(issued, deps.codes.mint(issued, issued.apiSessionId, now).value);
      const request = (await oidc.findAuthRequest(sealed.id)) ?? sealed;
      if (request.status === 'started' || request.status === 'partially_authenticated') {
        throw new OAuthError('invalid_request', 'the auth request has not completed its login; answer its auth queries first');
      }
      throw new OAuthError('invalid_request', 'the callback of this auth request has already been used; start again at the authorization endpoint');
    },

    authorizationCode: (params) => authorizationCode(checkClient(params)),
    refreshToken: (params) => refreshToken(checkClient(params)),

    async endSession(hint) {
      if (!hint) return;
      let sessionId: string | undefined;
      try {
        sessionId = await sessionOfJwt(hint);
      } catch {
        throw new OAuthError('invalid_request', 'id_token_hint is not a token this provider issued');
      }
      if (sessionId) await oidc.revokeSession(sessionId, clock.now());
    },

    endSessionById: (sessionId) => oidc.revokeSession(sessionId, clock.now()),
    jwks: () => tokens.jwks(clock.now()),

    async revoke(token) {
      if (!token) throw new OAuthError('invalid_request', 'token is required');
      const stored = await oidc.findRefreshToken(hashToken(token));
      if (stored) return oidc.revokeSession(stored.sessionId, clock.now());
      const sessionId = await sessionOfJwt(token).catch(() => undefined);
      if (sessionId) await oidc.revokeSession(sessionId, clock.now());
    },
  };
}
