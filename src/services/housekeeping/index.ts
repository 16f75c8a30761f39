/**
 * Housekeeping of the store (issue 15): what no request removes by itself, removed in the background on every
 * controller (the deletes are idempotent, so several controllers sweeping the same store do no harm):
 * - OIDC authorization requests past their expiry (a login used to delete them itself, a statement on every login);
 * - the client sessions and posture reports of OIDC sessions that have ended: revoked, or with every token expired.
 *   An OIDC session's row stays after its tokens expire, and its client sessions would otherwise stay with it.
 * Each sweep does a bounded amount of work; what is left goes at the next one.
 */
import type { Database } from '../../persistence/database.js';
import { createEdgeSessionRepository, type EdgeSessionRepository } from '../../persistence/repositories/edge-sessions.js';
import { createOidcRepository, type OidcRepository } from '../../persistence/repositories/oidc.js';
import type { Clock } from '../../shared/clock.js';

/** How often each controller sweeps. */
export const SWEEP_INTERVAL_MS = 30_000;
/** The most ended OIDC sessions one sweep clears. */
const SESSIONS_PER_SWEEP = 1_000;

export interface Housekeeping {
  /** One sweep; what it removed. */
  sweep(): Promise<{ clientSessions: number }>;
}

export function createHousekeeping(deps: {
  oidc: Pick<OidcRepository, 'deleteExpiredAuthRequests'>;
  edgeSessions: Pick<EdgeSessionRepository, 'deleteOfEndedOidcSessions'>;
  clock: Clock;
  /** How long an access token lives: a session's last one may be used that long after its last refresh token. */
  accessTokenLifetimeMs: number;
}): Housekeeping {
  return {
    async sweep() {
      const now = deps.clock.now();
      await deps.oidc.deleteExpiredAuthRequests(now);
      const cutoff = new Date(now.getTime() - deps.accessTokenLifetimeMs);
      return { clientSessions: await deps.edgeSessions.deleteOfEndedOidcSessions(cutoff, SESSIONS_PER_SWEEP) };
    },
  };
}

export function buildHousekeeping(database: Database, deps: { clock: Clock; accessTokenLifetimeMs: number }): Housekeeping {
  return createHousekeeping({ oidc: createOidcRepository(database), edgeSessions: createEdgeSessionRepository(database), ...deps });
}
