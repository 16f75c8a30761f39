/**
 * The authorization change log (migration 0014; docs/decisions/0028-service-reach-index.md): writers append one row
 * per changed entity in the transaction of the change; readers (each controller's in-memory service reach index)
 * fetch the rows after the last number they applied.
 *
 * The numbers must become visible in order, or a reader could apply 7, move its mark past 6 and never see 6 when it
 * commits. SQLite has one writer at a time, so that holds there; on PostgreSQL a writer takes a transaction-scoped
 * advisory lock before taking its number, so the next writer numbers only after this one has committed.
 */
import { sql, type Kysely } from 'kysely';
import type { Database, DialectName } from '../database.js';
import type { Tables } from '../tables.js';

/** What changed: an entity type the policy engine reads, or '*' for "many rows at once" (a bulk load). */
export type ChangedEntity =
  | 'identity'
  | 'service'
  | 'config'
  | 'config-type'
  | 'edge-router'
  | 'posture-check'
  | 'service-policy'
  | 'edge-router-policy'
  | 'service-edge-router-policy'
  | '*';

export interface AuthorizationChange {
  seq: number;
  entityType: ChangedEntity;
  entityId: string;
  /** When the change was made (ms since the epoch). */
  changedAt: number;
}

/** How many rows the log keeps; a reader further behind than this rebuilds its index instead. */
export const KEPT_CHANGES = 10_000;
const PRUNE_EVERY = 1_000;
/** Any fixed number: the advisory lock that orders the log's writers on PostgreSQL. */
const LOG_LOCK = 7_353_900_014;

/**
 * Appends a change; `db` is the change's own transaction (or the store, for a change of one statement on SQLite).
 *
 * @example await recordChange(trx, database.dialect, 'service', service.id);
 */
export async function recordChange(db: Kysely<Tables>, dialect: DialectName, entityType: ChangedEntity, entityId: string, at = new Date()): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${sql.lit(LOG_LOCK)})`.execute(db);
  const row = await db
    .insertInto('authorization_changes')
    .values({ entity_type: entityType, entity_id: entityId, changed_at: at.toISOString() })
    .returning('seq')
    .executeTakeFirstOrThrow();
  const seq = Number(row.seq);
  // Pruning now and then keeps the log short; readers that fall behind it notice the gap and rebuild.
  if (seq % PRUNE_EVERY === 0) await db.deleteFrom('authorization_changes').where('seq', '<=', seq - KEPT_CHANGES).execute();
}

export interface AuthorizationChangeLog {
  /** The number and time of the newest change; 0 and 0 when there is none. */
  latest(): Promise<{ seq: number; changedAt: number }>;
  /** The changes after `seq` in order, at most `limit` of them. */
  since(seq: number, limit: number): Promise<AuthorizationChange[]>;
}

export function createAuthorizationChangeLog(database: Database): AuthorizationChangeLog {
  const { db } = database;
  return {
    async latest() {
      const row = await db.selectFrom('authorization_changes').select(['seq', 'changed_at']).orderBy('seq', 'desc').limit(1).executeTakeFirst();
      return row ? { seq: Number(row.seq), changedAt: Date.parse(row.changed_at) } : { seq: 0, changedAt: 0 };
    },
    async since(seq, limit) {
      const rows = await db
        .selectFrom('authorization_changes')
        .select(['seq', 'entity_type', 'entity_id', 'changed_at'])
        .where('seq', '>', seq)
        .orderBy('seq')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ seq: Number(row.seq), entityType: row.entity_type as ChangedEntity, entityId: row.entity_id, changedAt: Date.parse(row.changed_at) }));
    },
  };
}
