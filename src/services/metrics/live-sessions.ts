/**
 * The count behind `svc_api_sessions`: live API sessions of both kinds, with liveness decided as for an identity's
 * `hasApiSession` (decision 0010): a legacy session whose last activity is within the session timeout, and an OIDC
 * session neither revoked nor past the life of its tokens.
 */
import type { SessionPresenceRepository } from '../../persistence/repositories/session-presence.js';
import type { Clock } from '../../shared/clock.js';

export interface LiveSessionSource {
  presence: Pick<SessionPresenceRepository, 'countLive'>;
  legacyTimeoutMs: number;
  accessTokenLifetimeMs: number;
}

/** A function counting the live API sessions now, for `ControllerMetrics.countLiveSessionsWith`. */
export function liveSessionCounter(source: LiveSessionSource, clock: Clock): () => Promise<number> {
  return () => {
    const now = clock.now();
    return source.presence.countLive({
      now,
      legacyActiveAfter: new Date(now.getTime() - source.legacyTimeoutMs),
      accessIssuedAfter: new Date(now.getTime() - source.accessTokenLifetimeMs),
    });
  };
}
