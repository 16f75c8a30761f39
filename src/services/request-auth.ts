/**
 * Decides who is calling from the credentials a request carries (spec: Authentication, Credential forms, and
 * Errors, Unauthorized responses). Knows nothing of HTTP: it is given the `svc-session` header value and the
 * Bearer tokens, and returns the caller or throws UNAUTHORIZED with the WWW-Authenticate challenges to send.
 */
import { ApiError, type AuthChallenge } from '../errors/api-error.js';
import { hashToken } from '../crypto/secrets.js';
import type { ApiSession, Identity } from '../domain/identity.js';
import type { ApiSessionRepository } from '../persistence/repositories/api-sessions.js';
import type { IdentityRepository } from '../persistence/repositories/identities.js';
import type { Clock } from '../shared/clock.js';
import { isIdentityDisabled } from '../policy/identity-status.js';
import type { SessionActivity } from './session-activity.js';

export interface AuthContext {
  kind: 'legacy';
  session: ApiSession;
  identity: Identity;
  expiresAt: Date;
  /** True while the session still has auth queries to answer (legacy partial authentication). */
  partial: boolean;
}

export interface PresentedCredentials {
  sessionToken: string | undefined;
  bearerTokens: string[];
}

export interface RequestAuthenticator {
  authenticate(credentials: PresentedCredentials): Promise<AuthContext>;
}

const NO_TOKEN = 'no matching token was provided';

/** Rule 1: no supported token at all -> challenges for both the legacy and the OIDC realm. */
export function missingCredentialsError(): ApiError {
  return new ApiError('UNAUTHORIZED', {
    challenges: [
      { scheme: 'svc-session', realm: 'svc-session', error: 'missing', description: NO_TOKEN },
      { scheme: 'Bearer', realm: 'svc-oidc', error: 'missing', description: NO_TOKEN },
    ],
  });
}

function unauthorized(challenge: AuthChallenge, message?: string): ApiError {
  return new ApiError('UNAUTHORIZED', { challenges: [challenge], ...(message ? { message } : {}) });
}

export function createRequestAuthenticator(deps: {
  apiSessions: ApiSessionRepository;
  identities: IdentityRepository;
  activity: SessionActivity;
  clock: Clock;
  sessionTimeoutMs: number;
}): RequestAuthenticator {
  const { apiSessions, identities, activity, clock, sessionTimeoutMs } = deps;
  const invalidToken = (description = 'token is invalid') =>
    unauthorized({ scheme: 'svc-session', realm: 'svc-session', error: 'invalid', description });

  async function fromSessionToken(token: string): Promise<AuthContext> {
    const session = await apiSessions.findByTokenHash(hashToken(token));
    if (!session) throw invalidToken();
    const now = clock.now();
    const remembered = activity.pending(session.id);
    const lastActivity = remembered && remembered > session.lastActivityAt ? remembered : session.lastActivityAt;
    if (lastActivity.getTime() + sessionTimeoutMs <= now.getTime()) {
      activity.forget(session.id);
      await apiSessions.delete(session.id);
      throw unauthorized({ scheme: 'svc-session', realm: 'svc-session', error: 'expired', description: 'token expired' });
    }
    const identity = await identities.findById(session.identityId);
    if (!identity) throw invalidToken();
    // A disabled identity's sessions stop working at once (they resume if it is enabled before they time out).
    if (isIdentityDisabled(identity, now)) throw invalidToken('the identity is disabled');
    activity.seen(session.id, now);
    session.lastActivityAt = now;
    return { kind: 'legacy', session, identity, expiresAt: new Date(now.getTime() + sessionTimeoutMs), partial: false };
  }

  return {
    async authenticate({ sessionToken, bearerTokens }) {
      // The reference gives the legacy header precedence: with it present, Bearer values are external JWTs.
      if (sessionToken !== undefined && sessionToken !== '') return fromSessionToken(sessionToken);
      if (bearerTokens.length > 0) {
        // OIDC access tokens are issued by the OIDC provider (roadmap step 3); until then none can be valid.
        throw unauthorized({ scheme: 'Bearer', realm: 'svc-oidc', error: 'invalid', description: 'token is invalid' });
      }
      throw missingCredentialsError();
    },
  };
}
