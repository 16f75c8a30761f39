/**
 * Starting and ending legacy API sessions. The token is 256 random bits handed out once; only its hash is kept.
 */
import { hashToken } from '../crypto/secrets.js';
import type { ApiSession } from '../domain/identity.js';
import type { ApiSessionRepository } from '../persistence/repositories/api-sessions.js';
import type { Clock } from '../shared/clock.js';
import type { SessionActivity } from './session-activity.js';
import { newEntityId, newSecretToken } from '../shared/random.js';

export interface ApiSessionService {
  /** Opens a session for an identity already authenticated by `authMethod`; returns it with its token. */
  start(identityId: string, authMethod: string, ipAddress: string | null): Promise<{ session: ApiSession; token: string }>;
  end(sessionId: string): Promise<boolean>;
}

export function createApiSessionService(deps: { apiSessions: ApiSessionRepository; activity: SessionActivity; clock: Clock }): ApiSessionService {
  return {
    async start(identityId, authMethod, ipAddress) {
      const now = deps.clock.now();
      const session: ApiSession = { id: newEntityId(), identityId, authMethod, ipAddress, createdAt: now, lastActivityAt: now };
      const token = newSecretToken();
      await deps.apiSessions.insert(session, hashToken(token));
      return { session, token };
    },
    end(sessionId) {
      deps.activity.forget(sessionId);
      return deps.apiSessions.delete(sessionId);
    },
  };
}
