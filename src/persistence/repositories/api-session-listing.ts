/**
 * API sessions of both kinds as administrators list them (`/api-sessions`, decision 0031): the legacy sessions and
 * the live OIDC sessions (session-presence.ts decides liveness), read as one table so that one filter, sort and
 * page apply to both. Read-only: revoking goes through each kind's own path.
 *
 * An OIDC session has no activity of its own; its `lastActivityAt` is when tokens were last issued for it (its newest
 * refresh token, else its creation). Its method is its first `amr` value, and it required MFA when `totp` is among
 * them. Ids never collide: legacy ids are 16 letters and digits, OIDC ids (`z_asid`) UUIDs with dashes.
 */
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { ApiSession } from '../../domain/identity.js';
import type { Database } from '../database.js';
import { compileFilter, fieldSpec, orderedColumn } from '../query/compile.js';
import type { FieldMap, ListQuery } from '../query/list-query.js';
import { apiSessionFromRow, type ApiSessionColumns } from './api-sessions.js';
import { liveOidcSessions, type LivenessWindow } from './session-presence.js';

export type ApiSessionKind = 'legacy' | 'oidc';

export interface ListedApiSession {
  kind: ApiSessionKind;
  session: ApiSession;
}

export interface ApiSessionListingRepository {
  /** One page of both kinds (OIDC sessions live in `window`), and the total matching the filter. */
  list(query: ListQuery, window: LivenessWindow): Promise<{ items: ListedApiSession[]; totalCount: number }>;
  /** The session of either kind with this id (an OIDC one only while live). */
  findById(id: string, window: LivenessWindow): Promise<ListedApiSession | undefined>;
}

/** Public field name -> column of the listed table, for `filter` and `sort` (e.g. `identityId = "…"`). */
export const LISTED_API_SESSION_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  identityId: { column: 'identity_id', type: 'string' },
  authMethod: { column: 'auth_method', type: 'string' },
  authenticatorId: { column: 'authenticator_id', type: 'string' },
  ipAddress: { column: 'ip_address', type: 'string' },
  isMfaRequired: { column: 'mfa_required', type: 'boolean' },
  kind: { column: 'kind', type: 'string' },
  createdAt: { column: 'created_at', type: 'datetime' },
  lastActivityAt: { column: 'last_activity_at', type: 'datetime' },
};

type ListedRow = ApiSessionColumns & { kind: ApiSessionKind };

function fromRow(row: ListedRow): ListedApiSession {
  return { kind: row.kind, session: apiSessionFromRow(row) };
}

export function createApiSessionListingRepository(database: Database): ApiSessionListingRepository {
  const { db, dialect } = database;
  // The first amr value (the primary method) of the JSON array, in each dialect's JSON functions.
  const firstAmr: RawBuilder<string> =
    dialect === 'postgres' ? sql<string>`coalesce(s.amr::json ->> 0, '')` : sql<string>`coalesce(json_extract(s.amr, '$[0]'), '')`;

  /** Both kinds as one derived table named `listed`. */
  function listed(window: LivenessWindow) {
    const legacy = db
      .selectFrom('api_sessions')
      .select([
        'id',
        'identity_id',
        'auth_method',
        'authenticator_id',
        'ip_address',
        'config_types',
        'created_at',
        'last_activity_at',
        'outstanding_factors',
        sql<boolean | number>`mfa_required`.as('mfa_required'),
        sql<ApiSessionKind>`'legacy'`.as('kind'),
      ]);
    const oidc = liveOidcSessions(db, window).select([
      's.id',
      's.identity_id',
      firstAmr.as('auth_method'),
      sql<string>`coalesce(s.authenticator_id, '')`.as('authenticator_id'),
      's.ip_address',
      's.config_types',
      's.created_at',
      sql<string>`coalesce((select max(r.created_at) from oidc_refresh_tokens r where r.session_id = s.id), s.created_at)`.as('last_activity_at'),
      // Every factor was answered before the session existed.
      sql<string>`'[]'`.as('outstanding_factors'),
      sql<boolean | number>`(s.amr like '%"totp"%')`.as('mfa_required'),
      sql<ApiSessionKind>`'oidc'`.as('kind'),
    ]);
    return legacy.unionAll(oidc).as('listed');
  }

  /** The listed rows matching `where`. */
  const matching = (window: LivenessWindow, where: Expression<SqlBool> | undefined) => {
    const rows = db.selectFrom(listed(window));
    return where ? rows.where(where) : rows;
  };

  return {
    async list(query, window) {
      const where = query.where === undefined ? undefined : compileFilter(query.where, LISTED_API_SESSION_FIELDS, dialect);
      let rows = matching(window, where).selectAll();
      for (const key of query.sort) {
        // As every list orders (list-query.ts): NULL is the smallest value on both dialects.
        rows = rows.orderBy(orderedColumn(fieldSpec(key.field, LISTED_API_SESSION_FIELDS), dialect), (order) =>
          key.direction === 'asc' ? order.asc().nullsFirst() : order.desc().nullsLast(),
        );
      }
      const count = matching(window, where).select(sql<number | string | bigint>`count(*)`.as('total'));
      const [found, total] = await Promise.all([rows.limit(query.limit).offset(query.offset).execute(), count.executeTakeFirstOrThrow()]);
      // PostgreSQL returns count(*) as a bigint, which pg hands over as a string.
      return { items: (found as ListedRow[]).map(fromRow), totalCount: Number(total.total) };
    },
    async findById(id, window) {
      const row = await matching(window, sql<SqlBool>`id = ${id}`).selectAll().executeTakeFirst();
      return row && fromRow(row as ListedRow);
    },
  };
}
