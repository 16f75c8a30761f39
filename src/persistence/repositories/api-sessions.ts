/**
 * Legacy API sessions in the store. Looked up by the SHA-256 of their token; the token itself is never stored.
 */
import { atomically } from '../unit-of-work.js';
import { preparedInsert } from '../prepared-query.js';
import type { Expression, ExpressionBuilder, Selectable, SqlBool } from 'kysely';
import type { ApiSession } from '../../domain/identity.js';
import type { Database } from '../database.js';
import type { ApiSessionsTable, Tables } from '../tables.js';
import type { OutstandingFactor } from '../../domain/auth-policy.js';
import { recordChange } from './authorization-changes.js';
import { listRows, type FieldMap, type ListQuery } from '../query/list-query.js';
import { parseJson, toBool, toDate, toIso } from './row-values.js';

export interface ApiSessionRepository {
  insert(session: ApiSession, tokenHash: string): Promise<void>;
  findByTokenHash(tokenHash: string): Promise<ApiSession | undefined>;
  findById(id: string): Promise<ApiSession | undefined>;
  touch(id: string, at: Date): Promise<void>;
  /** Records the last activity of many sessions in one transaction (never moves a session's time backwards). */
  touchMany(entries: { id: string; at: Date }[]): Promise<void>;
  delete(id: string): Promise<boolean>;
  /**
   * Deletes up to `limit` sessions whose last recorded activity is before `cutoff`, oldest first, with what hangs on
   * them (client sessions, ephemeral certificates and posture reports go by the foreign keys' cascades), in one
   * transaction, each logged as a change so controllers keeping a copy drop it. The condition is checked again by the
   * delete itself, so a session touched meanwhile (by another controller's flush) stays. How many went.
   */
  deleteInactiveBefore(cutoff: Date, limit: number): Promise<number>;
  /**
   * Replaces the outstanding factors if they are still `expected` (a factor was answered). False when another
   * request changed them first.
   */
  replaceOutstanding(id: string, expected: OutstandingFactor[], remaining: OutstandingFactor[]): Promise<boolean>;
  /** One page of sessions (administrators' `/api-sessions`), and the total matching the filter. */
  list(query: ListQuery): Promise<{ items: ApiSession[]; totalCount: number }>;
  /** The names of the identities `ids` (for the sessions' `identity` references). */
  identityNames(ids: readonly string[]): Promise<Map<string, string>>;
}

/** Public field name -> column, for `filter` and `sort` on `/api-sessions` (e.g. `identityId = "…"`). */
export const API_SESSION_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  identityId: { column: 'identity_id', type: 'string' },
  authMethod: { column: 'auth_method', type: 'string' },
  ipAddress: { column: 'ip_address', type: 'string' },
  isMfaRequired: { column: 'mfa_required', type: 'boolean' },
  createdAt: { column: 'created_at', type: 'datetime' },
  lastActivityAt: { column: 'last_activity_at', type: 'datetime' },
};

/** The columns an API session is read from; OIDC sessions listed with legacy ones are read into the same shape. */
export type ApiSessionColumns = Pick<
  Selectable<ApiSessionsTable>,
  'id' | 'identity_id' | 'auth_method' | 'authenticator_id' | 'ip_address' | 'config_types' | 'created_at' | 'last_activity_at' | 'outstanding_factors' | 'mfa_required'
>;

export function apiSessionFromRow(row: ApiSessionColumns): ApiSession {
  return {
    id: row.id,
    identityId: row.identity_id,
    authMethod: row.auth_method,
    authenticatorId: row.authenticator_id,
    ipAddress: row.ip_address,
    configTypes: parseJson<string[]>(row.config_types),
    createdAt: toDate(row.created_at),
    lastActivityAt: toDate(row.last_activity_at),
    outstanding: parseJson<OutstandingFactor[]>(row.outstanding_factors),
    mfaRequired: toBool(row.mfa_required),
  };
}

/** Every legacy login inserts one (prepared: built once, decision 0043). */
const insertRow = preparedInsert('api_sessions');

export function createApiSessionRepository(database: Database): ApiSessionRepository {
  const { db } = database;
  return {
    async insert(session, tokenHash) {
      await atomically(db, async (trx) => {
        await insertRow(trx, {
        id: session.id,
        identity_id: session.identityId,
        token_hash: tokenHash,
        auth_method: session.authMethod,
        authenticator_id: session.authenticatorId,
        ca_id: session.caId ?? null,
        ip_address: session.ipAddress,
        config_types: JSON.stringify(session.configTypes),
        created_at: toIso(session.createdAt),
        last_activity_at: toIso(session.lastActivityAt),
        outstanding_factors: JSON.stringify(session.outstanding),
        mfa_required: session.mfaRequired,
        });
        // The live status stream of every controller re-reads the identity's presence (issue 45).
        await recordChange({ ...database, db: trx }, 'identity-presence', session.identityId);
      });
    },
    async findByTokenHash(tokenHash) {
      const row = await db.selectFrom('api_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row && apiSessionFromRow(row);
    },
    async findById(id) {
      const row = await db.selectFrom('api_sessions').selectAll().where('id', '=', id).executeTakeFirst();
      return row && apiSessionFromRow(row);
    },
    async touch(id, at) {
      await db.updateTable('api_sessions').set({ last_activity_at: toIso(at) }).where('id', '=', id).execute();
    },
    async touchMany(entries) {
      await atomically(db, async (trx) => {
        for (const { id, at } of entries) {
          await trx
            .updateTable('api_sessions')
            .set({ last_activity_at: toIso(at) })
            .where('id', '=', id)
            .where('last_activity_at', '<', toIso(at))
            .execute();
        }
      });
    },
    async replaceOutstanding(id, expected, remaining) {
      // Compare-and-set on the stored list, so two answers racing cannot both count.
      return atomically(db, async (trx) => {
        const result = await trx
          .updateTable('api_sessions')
          .set({ outstanding_factors: JSON.stringify(remaining) })
          .where('id', '=', id)
          .where('outstanding_factors', '=', JSON.stringify(expected))
          .executeTakeFirst();
        const updated = Number(result.numUpdatedRows) > 0;
        // Copies of the session kept in memory (the authentication cache) must not keep asking for the factor.
        if (updated) await recordChange({ ...database, db: trx }, 'api-session', id);
        return updated;
      });
    },
    async list(query) {
      const { rows, totalCount } = await listRows(database, 'api_sessions', API_SESSION_FIELDS, query);
      return { items: rows.map(apiSessionFromRow), totalCount };
    },
    async identityNames(ids) {
      if (ids.length === 0) return new Map();
      const rows = await db.selectFrom('identities').select(['id', 'name']).where('id', 'in', [...ids]).execute();
      return new Map(rows.map((row) => [row.id, row.name]));
    },
    async deleteInactiveBefore(cutoff, limit) {
      const before = toIso(cutoff);
      const stale = await db.selectFrom('api_sessions').select('id').where('last_activity_at', '<', before).orderBy('last_activity_at').limit(limit).execute();
      if (stale.length === 0) return 0;
      const ids = stale.map((row) => row.id);
      const gone = await deleteApiSessionsWhere(database, (eb) => eb.and([eb('id', 'in', ids), eb('last_activity_at', '<', before)]));
      return gone.length;
    },
    async delete(id) {
      return atomically(db, async (trx) => {
        const row = await trx.deleteFrom('api_sessions').where('id', '=', id).returning('identity_id').executeTakeFirst();
        if (row) {
          await recordChange({ ...database, db: trx }, 'api-session', id);
          await recordChange({ ...database, db: trx }, 'identity-presence', row.identity_id);
        }
        return row !== undefined;
      });
    },
  };
}

/**
 * Deletes the legacy API sessions `which` picks, in one transaction (the caller's, when `store` is in one), each logged
 * as a change so every controller keeping a copy drops it; what hangs on them (client sessions, ephemeral certificates,
 * posture reports) goes by the foreign keys' cascades. The ids deleted.
 */
export async function deleteApiSessionsWhere(store: Database, which: (eb: ExpressionBuilder<Tables, 'api_sessions'>) => Expression<SqlBool>): Promise<string[]> {
  return atomically(store.db, async (trx) => {
    const gone = await trx.deleteFrom('api_sessions').where(which).returning(['id', 'identity_id']).execute();
    for (const { id } of gone) await recordChange({ ...store, db: trx }, 'api-session', id);
    for (const identityId of new Set(gone.map((row) => row.identity_id))) await recordChange({ ...store, db: trx }, 'identity-presence', identityId);
    return gone.map((row) => row.id);
  });
}
