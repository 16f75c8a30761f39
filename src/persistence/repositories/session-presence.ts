/**
 * Which identities have a live API session of either kind (the identity detail's `hasApiSession`). Read-only, and
 * apart from the legacy-session and OIDC repositories because it asks one question of both stores at once, for a
 * whole page of identities in two queries.
 *
 * Neither kind of row is deleted the moment it stops working (an idle legacy session is removed when next presented,
 * an OIDC session is only marked revoked), so liveness is decided from times: the caller says from when a legacy
 * session's last activity still counts, and from when an OIDC access token can still be valid.
 */
import type { Database } from '../database.js';
import { toIso } from './row-values.js';

export interface LivenessWindow {
  /** Legacy sessions active after this instant have not timed out (now minus the session timeout). */
  legacyActiveAfter: Date;
  /** Access tokens issued after this instant have not expired (now minus the access token lifetime). */
  accessIssuedAfter: Date;
  now: Date;
}

export interface SessionPresenceRepository {
  /** The ids among `identityIds` that have a live legacy session or a live, unrevoked OIDC session. */
  withLiveSession(identityIds: readonly string[], window: LivenessWindow): Promise<Set<string>>;
  /** How many live legacy sessions and live, unrevoked OIDC sessions there are (the `svc_api_sessions` gauge). */
  countLive(window: LivenessWindow): Promise<number>;
  /**
   * The latest times one identity's sessions count from (the live status stream, issue 45): its legacy sessions' last
   * activity, its unrevoked OIDC sessions' creation and their active refresh tokens' expiry; null where it has none.
   * The caller adds the timeouts: liveness then ends at the latest of the three, decided as `withLiveSession` does.
   * Only sessions live in `window` are read (legacy ones through the last-activity index); the others count as none.
   */
  latestOf(identityId: string, window: LivenessWindow): Promise<SessionTimes>;
}

export interface SessionTimes {
  legacyActivity: Date | null;
  oidcCreated: Date | null;
  refreshExpiry: Date | null;
}

export function createSessionPresenceRepository({ db }: Database): SessionPresenceRepository {
  return {
    async withLiveSession(identityIds, window) {
      const ids = [...new Set(identityIds)];
      // `in ()` is not SQL; a page without identities has no sessions either.
      if (ids.length === 0) return new Set();
      const legacy = db
        .selectFrom('api_sessions')
        .select('identity_id')
        .distinct()
        .where('identity_id', 'in', ids)
        .where('last_activity_at', '>', toIso(window.legacyActiveAfter))
        .execute();
      const oidc = liveOidcSessions(db, window).select('s.identity_id').distinct().where('s.identity_id', 'in', ids).execute();
      const [legacyRows, oidcRows] = await Promise.all([legacy, oidc]);
      return new Set([...legacyRows, ...oidcRows].map((row) => row.identity_id));
    },

    async countLive(window) {
      const legacy = db
        .selectFrom('api_sessions')
        .select((eb) => eb.fn.countAll().as('count'))
        .where('last_activity_at', '>', toIso(window.legacyActiveAfter))
        .executeTakeFirstOrThrow();
      const oidc = liveOidcSessions(db, window)
        .select((eb) => eb.fn.countAll().as('count'))
        .executeTakeFirstOrThrow();
      const [legacyRow, oidcRow] = await Promise.all([legacy, oidc]);
      // PostgreSQL's count is a bigint, which pg hands over as text.
      return Number(legacyRow.count) + Number(oidcRow.count);
    },

    async latestOf(identityId, window) {
      const legacy = db
        .selectFrom('api_sessions')
        .select((eb) => eb.fn.max('last_activity_at').as('at'))
        .where('last_activity_at', '>', toIso(window.legacyActiveAfter))
        .where('identity_id', '=', identityId)
        .executeTakeFirst();
      const oidc = db
        .selectFrom('oidc_sessions')
        .select((eb) => eb.fn.max('created_at').as('at'))
        .where('created_at', '>', toIso(window.accessIssuedAfter))
        .where('identity_id', '=', identityId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      const refresh = db
        .selectFrom('oidc_refresh_tokens as r')
        .innerJoin('oidc_sessions as s', 's.id', 'r.session_id')
        .select((eb) => eb.fn.max('r.expires_at').as('at'))
        .where('s.identity_id', '=', identityId)
        .where('s.revoked_at', 'is', null)
        .where('r.status', '=', 'active')
        .where('r.expires_at', '>', toIso(window.now))
        .executeTakeFirst();
      const [a, b, c] = await Promise.all([legacy, oidc, refresh]);
      const date = (row: { at: string | null } | undefined) => (row?.at ? new Date(row.at) : null);
      return { legacyActivity: date(a), oidcCreated: date(b), refreshExpiry: date(c) };
    },
  };
}

/**
 * OIDC sessions that live: unrevoked, and an access token of them can still be valid: the first one (issued when the
 * session was created) has not expired, or the session holds an active refresh token, which is issued with every
 * later access token and outlives it.
 */
export function liveOidcSessions(db: Database['db'], window: LivenessWindow) {
  return db
    .selectFrom('oidc_sessions as s')
    .where('s.revoked_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('s.created_at', '>', toIso(window.accessIssuedAfter)),
        eb.exists(
          eb
            .selectFrom('oidc_refresh_tokens as r')
            .select('r.id')
            .whereRef('r.session_id', '=', 's.id')
            .where('r.status', '=', 'active')
            .where('r.expires_at', '>', toIso(window.now)),
        ),
      ]),
    );
}
