/**
 * The authentication domain's builders: primary logins (the method registry, the password guard and its lockouts,
 * the login work queue), and the authenticator of every API request (legacy session or Bearer access token, then a
 * required secondary external JWT). The request authenticator is built last: it needs the OIDC access-token verifier,
 * and the OIDC provider needs the logins.
 */
import type { Database } from '../../persistence/database.js';
import { createAuthPolicyRepository } from '../../persistence/repositories/auth-policies.js';
import { createCredentialRepository } from '../../persistence/repositories/credentials.js';
import { createIdentityRepository } from '../../persistence/repositories/identities.js';
import type { MfaRepository } from '../../persistence/repositories/mfa.js';
import { createPasswordLockoutRepository } from '../../persistence/repositories/password-lockouts.js';
import type { Clock } from '../../shared/clock.js';
import type { SecurityEvents } from '../audit/security-events.js';
import type { ExtJwtAuthenticator } from '../external-jwt/ext-jwt-auth.js';
import { createOidcRepository } from '../../persistence/repositories/oidc.js';
import type { ChangeFeed } from '../change-feed/change-feed.js';
import { createAccessTokenVerifier, type AccessTokenVerifier } from '../oidc-provider/oidc-access-tokens.js';
import type { OidcTokenSigner } from '../oidc-provider/oidc-tokens.js';
import type { SessionsDomain } from '../sessions/index.js';
import { authPolicyIdOf, authPolicyOf, createAuthenticationService, type AuthenticationDeps, type AuthenticationService } from './authentication.js';
import { limitAuthentication } from './limited-authentication.js';
import { createAuthLookups, type AuthLookups } from './auth-lookups.js';
import { createPasswordGuard, type PasswordGuard } from './password-guard.js';
import { createRequestAuthenticator, type RequestAuthenticator } from './request-auth.js';
import { createWorkLimiter, type WorkLimiterOptions } from './work-limiter.js';

export interface AuthenticationDomain {
  /** Primary logins, legacy and OIDC, each waiting for a turn of the login work queue. */
  authentication: AuthenticationService;
  passwords: PasswordGuard;
}

export function buildAuthenticationDomain(
  database: Database,
  deps: {
    clock: Clock;
    events: SecurityEvents;
    sessions: SessionsDomain;
    sessionTimeoutMs: number;
    /**
     * The authentication cache (buildAuthLookups): a login reads its identity and auth policy as requests do, and its
     * password authenticator and TOTP state from there too.
     */
    lookups: Pick<AuthLookups, 'identities' | 'authPolicies' | 'passwords' | 'totp'>;
    extJwt: ExtJwtAuthenticator;
    limits: WorkLimiterOptions;
    /** The CAs certificate logins are judged against now: own and third-party (decision 0037). */
    clientCaTrust?: AuthenticationDeps['clientCaTrust'];
  },
): AuthenticationDomain {
  const { clock, events } = deps;
  const passwords = createPasswordGuard({ lockouts: createPasswordLockoutRepository(database), events, clock });
  const identities = createIdentityRepository(database);
  const authentication = createAuthenticationService({
    identities: { findById: deps.lookups.identities.findById, recordClientInfo: identities.recordClientInfo },
    credentials: { ...createCredentialRepository(database), findPassword: deps.lookups.passwords.findPassword },
    authPolicies: deps.lookups.authPolicies,
    apiSessions: deps.sessions.service,
    extJwt: deps.extJwt,
    mfa: deps.lookups.totp,
    passwords,
    events,
    clock,
    sessionTimeoutMs: deps.sessionTimeoutMs,
    ...(deps.clientCaTrust ? { clientCaTrust: deps.clientCaTrust } : {}),
  });
  return { authentication: limitAuthentication(authentication, createWorkLimiter(deps.limits)), passwords };
}

/**
 * The authentication cache (auth-lookups.ts) that `feed` keeps current: sessions, identities and auth policies as
 * every request and every login reads them, and the password authenticators and TOTP states logins read.
 */
export function buildAuthLookups(
  database: Database,
  deps: {
    feed: ChangeFeed;
    sessions: SessionsDomain;
    mfa: Pick<MfaRepository, 'isVerified'>;
    onLookup?: Parameters<typeof createAuthLookups>[0]['onLookup'];
  },
): AuthLookups {
  return createAuthLookups({
    feed: deps.feed,
    apiSessions: deps.sessions.records,
    identities: createIdentityRepository(database),
    authPolicies: createAuthPolicyRepository(database),
    oidc: createOidcRepository(database),
    credentials: createCredentialRepository(database),
    mfa: deps.mfa,
    ...(deps.onLookup ? { onLookup: deps.onLookup } : {}),
  });
}

/**
 * The authenticator of every API request, reading through the authentication cache (`lookups`). Its access token
 * verifier is the controller's one (also `/oidc/userinfo`'s), so every place that accepts an access token accepts
 * the same ones.
 */
export function buildRequestAuthenticator(deps: {
  clock: Clock;
  lookups: AuthLookups;
  sessions: SessionsDomain;
  sessionTimeoutMs: number;
  extJwt: Pick<ExtJwtAuthenticator, 'secondary'>;
  /** The OIDC provider's token signer; absent without an edge section: every Bearer token is then invalid. */
  tokens: OidcTokenSigner | undefined;
}): RequestAuthenticator & { accessTokens: AccessTokenVerifier | undefined } {
  const { clock, tokens, lookups } = deps;
  const accessTokens = tokens && createAccessTokenVerifier({ tokens, oidc: lookups.oidcSessions, identities: lookups.identities, clock });
  const authenticator = createRequestAuthenticator({
    apiSessions: lookups.apiSessions,
    identities: lookups.identities,
    activity: deps.sessions.activity,
    clock,
    sessionTimeoutMs: deps.sessionTimeoutMs,
    ...(accessTokens ? { accessTokens } : {}),
    secondary: {
      requiredSigner: async (who) => (await authPolicyOf(lookups.authPolicies, who)).secondary.requireExtJwt,
      requiredSignerFromMemory: (who) => lookups.authPolicies.peek(authPolicyIdOf(who))?.secondary.requireExtJwt,
      check: deps.extJwt.secondary,
    },
  });
  return {
    authenticate: (credentials) => authenticator.authenticate(credentials),
    authenticateFromMemory: (credentials) => authenticator.authenticateFromMemory(credentials),
    accessTokens,
  };
}
