/**
 * Client API sessions in the store (migration 0016), written by hand: sessions have no name, so the resource kit's
 * repository does not fit. One row per (API session, service, type); rows go with their API session through the
 * foreign key of its kind, and with their service or identity. Reads carry the service's name (the entity ref the
 * session view shows). No rules here: who may open or see a session is the edge-sessions domain's.
 */
import { sql, type SqlBool } from 'kysely';
import type { EdgeSession, NamedEdgeSession } from '../../domain/edge-session.js';
import type { RoleTarget, ServicePolicyType } from '../../domain/policy.js';
import type { Database } from '../database.js';
import { listTableRows, type FieldMap, type ListQuery, type ListRestriction } from '../query/list-query.js';
import { membershipCondition, type Membership } from './policy-engine.js';
import type { EdgeSessionsTable } from '../tables.js';
import { atomically } from '../unit-of-work.js';
import { parseJson, toDate, toIso } from './row-values.js';
import { isForeignKeyViolation } from '../store-errors.js';

/** Public field name -> column, for `filter` and `sort` on session lists. */
export const EDGE_SESSION_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  serviceId: { column: 'service_id', type: 'string' },
  type: { column: 'type', type: 'string' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
};

/** What an administrator may filter and sort every session by: the client's fields and whose session it is. */
export const ADMIN_EDGE_SESSION_FIELDS: FieldMap = {
  ...EDGE_SESSION_FIELDS,
  identityId: { column: 'identity_id', type: 'string' },
  apiSessionId: { column: 'api_session_id', type: 'string' },
};

/** A session with its service's and identity's names, as the management list shows it. */
export interface ListedEdgeSession extends NamedEdgeSession {
  identityName: string;
}

export interface EdgeSessionRepository {
  /**
   * Stores `session` unless its API session already has one for the same service and type, and returns the stored
   * one either way (the new row, or the earlier one unchanged). Safe under concurrent calls: the unique index
   * decides, and the loser reads the winner's row. Undefined when something it refers to (the API session, the
   * identity or the service) was deleted meanwhile. `serviceName`, when the caller knows it, saves reading it.
   */
  open(session: EdgeSession, serviceName?: string): Promise<NamedEdgeSession | undefined>;
  findById(id: string): Promise<NamedEdgeSession | undefined>;
  /** A page of one API session's sessions under the client's query. */
  listOfApiSession(apiSessionId: string, query: ListQuery): Promise<{ items: NamedEdgeSession[]; totalCount: number }>;
  /** Deletes those of `ids` that belong to `apiSessionId`; how many went. */
  delete(apiSessionId: string, ids: readonly string[]): Promise<number>;
  /** A page of every API session's sessions (administrators), with identity names. */
  listAll(query: ListQuery): Promise<{ items: ListedEdgeSession[]; totalCount: number }>;
  /** Deletes session `id` whoever holds it; the deleted session, or undefined when there was none. */
  deleteById(id: string): Promise<EdgeSession | undefined>;
  /**
   * How many sessions `apiSessionId` holds, and whether one of them is for `serviceId` and `type` (then opening it
   * again adds nothing). One read.
   */
  heldBy(apiSessionId: string, serviceId: string, type: ServicePolicyType): Promise<{ count: number; holdsThis: boolean }>;
  /**
   * Deletes the sessions, and the posture reports, of up to `limit` OIDC sessions that have ended: revoked, or
   * started before `cutoff` with no refresh token that expires after it (an OIDC session row outlives its tokens,
   * so nothing else removes these). How many sessions went.
   */
  deleteOfEndedOidcSessions(cutoff: Date, limit: number): Promise<number>;
}

/**
 * The restriction "within every one of `memberships`" on `target`'s table, for a list that two kinds of policy bound
 * together (a service's edge routers: the identity's edge router policies and the service's service edge router
 * policies).
 */
export function withinEvery(target: RoleTarget, memberships: readonly Membership[]): ListRestriction {
  if (memberships.length === 0) return sql<SqlBool>`1 = 1`;
  return sql<SqlBool>`(${sql.join(memberships.map((membership) => membershipCondition(target, membership)), sql` and `)})`;
}

function fromRow(row: EdgeSessionsTable): EdgeSession {
  return {
    id: row.id,
    apiSessionId: row.api_session_id,
    apiSessionKind: row.oidc_session_id === null ? 'legacy' : 'oidc',
    identityId: row.identity_id,
    serviceId: row.service_id,
    type: row.type as ServicePolicyType,
    tags: parseJson(row.tags),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

function toRow(session: EdgeSession): EdgeSessionsTable {
  return {
    id: session.id,
    api_session_id: session.apiSessionId,
    legacy_session_id: session.apiSessionKind === 'legacy' ? session.apiSessionId : null,
    oidc_session_id: session.apiSessionKind === 'oidc' ? session.apiSessionId : null,
    identity_id: session.identityId,
    service_id: session.serviceId,
    type: session.type,
    tags: JSON.stringify(session.tags),
    created_at: toIso(session.createdAt),
    updated_at: toIso(session.updatedAt),
  };
}

export function createEdgeSessionRepository(database: Database): EdgeSessionRepository {
  const { db } = database;

  async function named(sessions: EdgeSession[]): Promise<NamedEdgeSession[]> {
    const ids = [...new Set(sessions.map((session) => session.serviceId))];
    const rows = ids.length === 0 ? [] : await db.selectFrom('services').select(['id', 'name']).where('id', 'in', ids).execute();
    const names = new Map(rows.map((row) => [row.id, row.name]));
    return sessions.map((session) => ({ ...session, serviceName: names.get(session.serviceId) ?? '' }));
  }

  return {
    async open(session, serviceName) {
      const row = toRow(session);
      const withName = async (stored: EdgeSessionsTable) =>
        serviceName === undefined ? ((await named([fromRow(stored)]))[0] as NamedEdgeSession) : { ...fromRow(stored), serviceName };
      const existing = () =>
        db
          .selectFrom('edge_sessions')
          .selectAll()
          .where('api_session_id', '=', row.api_session_id)
          .where('service_id', '=', row.service_id)
          .where('type', '=', row.type)
          .executeTakeFirst();
      // Most calls find the session a client opened before (one read); a new one is one insert.
      const found = await existing();
      if (found) return withName(found);
      let inserted: EdgeSessionsTable | undefined;
      try {
        inserted = await db
          .insertInto('edge_sessions')
          .values(row)
          .onConflict((conflict) => conflict.columns(['api_session_id', 'service_id', 'type']).doNothing())
          .returningAll()
          .executeTakeFirst();
      } catch (error) {
        if (isForeignKeyViolation(error)) return undefined;
        throw error;
      }
      // Nothing inserted: a concurrent call won the unique index; its row is the session.
      const stored = inserted ?? (await existing());
      return stored && withName(stored);
    },
    async findById(id) {
      const row = await db.selectFrom('edge_sessions').selectAll().where('id', '=', id).executeTakeFirst();
      return row && (await named([fromRow(row)]))[0];
    },
    async listOfApiSession(apiSessionId, query) {
      const mine = sql<SqlBool>`${sql.ref('edge_sessions.api_session_id')} = ${apiSessionId}`;
      const { rows, totalCount } = await listTableRows(db, database.dialect, 'edge_sessions', EDGE_SESSION_FIELDS, query, mine);
      return { items: await named(rows.map(fromRow)), totalCount };
    },
    async delete(apiSessionId, ids) {
      if (ids.length === 0) return 0;
      const result = await db.deleteFrom('edge_sessions').where('api_session_id', '=', apiSessionId).where('id', 'in', [...ids]).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async listAll(query) {
      const { rows, totalCount } = await listTableRows(db, database.dialect, 'edge_sessions', ADMIN_EDGE_SESSION_FIELDS, query);
      const items = await named(rows.map(fromRow));
      const ids = [...new Set(items.map((session) => session.identityId))];
      const identities = ids.length === 0 ? [] : await db.selectFrom('identities').select(['id', 'name']).where('id', 'in', ids).execute();
      const names = new Map(identities.map((row) => [row.id, row.name]));
      return { items: items.map((session) => ({ ...session, identityName: names.get(session.identityId) ?? '' })), totalCount };
    },
    async deleteById(id) {
      const row = await db.deleteFrom('edge_sessions').where('id', '=', id).returningAll().executeTakeFirst();
      return row && fromRow(row);
    },
    async heldBy(apiSessionId, serviceId, type) {
      const row = await db
        .selectFrom('edge_sessions')
        .select((eb) => [
          eb.fn.countAll().as('count'),
          eb.fn.sum<number | string | null>(eb.case().when(eb.and([eb('service_id', '=', serviceId), eb('type', '=', type)])).then(1).else(0).end()).as('matching'),
        ])
        .where('api_session_id', '=', apiSessionId)
        .executeTakeFirstOrThrow();
      return { count: Number(row.count), holdsThis: Number(row.matching ?? 0) > 0 };
    },
    async deleteOfEndedOidcSessions(cutoff, limit) {
      const before = toIso(cutoff);
      const ended = await db
        .selectFrom('oidc_sessions as s')
        .select('s.id')
        .where((eb) =>
          eb.or([
            eb('s.revoked_at', 'is not', null),
            eb.and([
              eb('s.created_at', '<', before),
              eb.not(eb.exists(eb.selectFrom('oidc_refresh_tokens as r').select('r.id').whereRef('r.session_id', '=', 's.id').where('r.expires_at', '>', before))),
            ]),
          ]),
        )
        .where((eb) =>
          eb.or([
            eb.exists(eb.selectFrom('edge_sessions as e').select('e.id').whereRef('e.oidc_session_id', '=', 's.id')),
            eb.exists(eb.selectFrom('posture_responses as p').select('p.session_id').whereRef('p.oidc_session_id', '=', 's.id')),
          ]),
        )
        .limit(limit)
        .execute();
      if (ended.length === 0) return 0;
      const ids = ended.map((row) => row.id);
      return atomically(db, async (trx) => {
        const result = await trx.deleteFrom('edge_sessions').where('oidc_session_id', 'in', ids).executeTakeFirst();
        await trx.deleteFrom('posture_responses').where('oidc_session_id', 'in', ids).execute();
        return Number(result.numDeletedRows);
      });
    },
  };
}
