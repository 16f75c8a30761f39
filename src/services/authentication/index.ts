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
import type { AccessTokenVerifier } from '../oidc-provider/oidc-access-tokens.js';
import type { SessionsDomain } from '../sessions/index.js';
import { createAuthenticationService, type AuthenticationService } from './authentication.js';
import { limitAuthentication } from './limited-authentication.js';
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
    mfa: Pick<MfaRepository, 'isVerified'>;
    extJwt: ExtJwtAuthenticator;
    limits: WorkLimiterOptions;
  },
): AuthenticationDomain {
  const { clock, events } = deps;
  const passwords = createPasswordGuard({ lockouts: createPasswordLockoutRepository(database), events, clock });
  const authentication = createAuthenticationService({
    identities: createIdentityRepository(database),
    credentials: createCredentialRepository(database),
    authPolicies: createAuthPolicyRepository(database),
    apiSessions: deps.sessions.service,
    extJwt: deps.extJwt,
    mfa: deps.mfa,
    passwords,
    events,
    clock,
    sessionTimeoutMs: deps.sessionTimeoutMs,
  });
  return { authentication: limitAuthentication(authentication, createWorkLimiter(deps.limits)), passwords };
}

export function buildRequestAuthenticator(
  database: Database,
  deps: {
    clock: Clock;
    sessions: SessionsDomain;
    sessionTimeoutMs: number;
    authentication: Pick<AuthenticationService, 'policyOf'>;
    extJwt: Pick<ExtJwtAuthenticator, 'secondary'>;
    /** Absent without an edge section: every Bearer token is then invalid. */
    accessTokens: AccessTokenVerifier | undefined;
  },
): RequestAuthenticator {
  const { authentication, accessTokens } = deps;
  return createRequestAuthenticator({
    apiSessions: deps.sessions.records,
    identities: createIdentityRepository(database),
    activity: deps.sessions.activity,
    clock: deps.clock,
    sessionTimeoutMs: deps.sessionTimeoutMs,
    ...(accessTokens ? { accessTokens } : {}),
    secondary: { requiredSigner: async (who) => (await authentication.policyOf(who)).secondary.requireExtJwt, check: deps.extJwt.secondary },
  });
}
