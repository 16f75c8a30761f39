/**
 * Starting and ending legacy API sessions. The token is 256 random bits handed out once; only its hash is kept.
 */
import { hashToken } from '../../crypto/secrets.js';
import type { OutstandingFactor } from '../../domain/auth-policy.js';
import type { ApiSession } from '../../domain/identity.js';
import type { ApiSessionRepository } from '../../persistence/repositories/api-sessions.js';
import type { Clock } from '../../shared/clock.js';
import type { SessionActivity } from './session-activity.js';
import type { SessionConfigTypes } from './config-types.js';
import { newEntityId, newSecretToken } from '../../shared/random.js';

/** What a new session still has to answer, decided at authentication. */
export interface SessionFactors {
  outstanding: OutstandingFactor[];
  mfaRequired: boolean;
}

/** What the login that opens a session said and used (both shown on the session). */
export interface SessionOrigin {
  authenticatorId: string;
  configTypes: readonly string[];
  /** The third-party CA a certificate login's chain reached (decision 0057). */
  caId?: string;
}

export interface ApiSessionService {
  /** Opens a session for an identity already authenticated by `authMethod`; returns it with its token. */
  start(
    identityId: string,
    authMethod: string,
    ipAddress: string | null,
    factors?: SessionFactors,
    origin?: SessionOrigin,
  ): Promise<{ session: ApiSession; token: string }>;
  /**
   * Records that the session answered `kind` (spec: partially authenticated -> fully authenticated once all auth
   * queries are satisfied). Returns the factors still outstanding.
   */
  answered(session: ApiSession, kind: OutstandingFactor['kind']): Promise<OutstandingFactor[]>;
  end(sessionId: string): Promise<boolean>;
}

export function createApiSessionService(deps: {
  apiSessions: ApiSessionRepository;
  activity: SessionActivity;
  clock: Clock;
  /** Resolves the config types a login asked for to ids (absent: kept as given). */
  configTypes?: Pick<SessionConfigTypes, 'resolve'>;
}): ApiSessionService {
  return {
    async start(identityId, authMethod, ipAddress, factors = { outstanding: [], mfaRequired: false }, origin = { authenticatorId: '', configTypes: [] }) {
      const configTypes = deps.configTypes ? await deps.configTypes.resolve(origin.configTypes) : [...origin.configTypes];
      const now = deps.clock.now();
      const session: ApiSession = {
        id: newEntityId(),
        identityId,
        authMethod,
        authenticatorId: origin.authenticatorId,
        caId: origin.caId ?? null,
        ipAddress,
        configTypes,
        createdAt: now,
        lastActivityAt: now,
        ...factors,
      };
      const token = newSecretToken();
      await deps.apiSessions.insert(session, hashToken(token));
      return { session, token };
    },
    async answered(session, kind) {
      let expected = session.outstanding;
      for (let attempt = 0; attempt < 3; attempt++) {
        const remaining = expected.filter((factor) => factor.kind !== kind);
        if (remaining.length === expected.length) return expected;
        if (await deps.apiSessions.replaceOutstanding(session.id, expected, remaining)) return remaining;
        const fresh = await deps.apiSessions.findById(session.id);
        if (!fresh) return expected;
        expected = fresh.outstanding;
      }
      return expected;
    },
    end(sessionId) {
      deps.activity.forget(sessionId);
      return deps.apiSessions.delete(sessionId);
    },
  };
}
