/**
 * The authorization change log (migration 0014; docs/decisions/0028-service-reach-index.md): writers append one row
 * per changed entity in the transaction of the change; readers (each controller's in-memory service reach index)
 * fetch the rows after the last number they applied.
 *
 * The numbers must become visible in order, or a reader could apply 7, move its mark past 6 and never see 6 when it
 * commits. SQLite has one writer at a time, so that holds there; on PostgreSQL a writer takes a transaction-scoped
 * advisory lock before taking its number, so the next writer numbers only after this one has committed.
 */
import { sql } from 'kysely';
import type { Database } from '../database.js';
import { afterCommit, atomically } from '../unit-of-work.js';

/**
 * What changed. The policy engine's inputs; and what authenticating a request reads, so that controllers keeping
 * copies of it in memory (the authentication cache) drop them: an API session (ended, or its auth queries answered),
 * an OIDC session (revoked), an auth policy, an external JWT signer. '*' means "many rows at once" (a bulk load).
 */
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
  | 'api-session'
  | 'oidc-session'
  | 'auth-policy'
  | 'external-jwt-signer'
  | 'ca'
  | 'posture-response'
  /** An SDK-bound terminator removed by someone other than its router (its router ends the binding). */
  | 'terminator'
  /**
   * Live status (issue 45): an identity's API sessions began or ended (its id), a router's control channel came up or
   * went down at some controller (its id). Only the live status stream reads these; they drop no copies.
   */
  | 'identity-presence'
  | 'router-presence'
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

/** The PostgreSQL notification channel a change is announced on, with its number as the payload (at commit). */
export const CHANGE_CHANNEL = 'svc_changes';

/**
 * Appends a change in the transaction of the change (`store.db` may be one, or the store itself: then the row is a
 * transaction of its own), announces it on PostgreSQL, and tells this controller's in-memory copies once committed.
 *
 * @example await recordChange({ ...database, db: trx }, 'service', service.id);
 */
export async function recordChange(store: Pick<Database, 'db' | 'dialect' | 'changes'>, entityType: ChangedEntity, entityId: string, at = new Date()): Promise<void> {
  const { dialect } = store;
  await atomically(store.db, async (trx) => {
    // Held to the commit, so the next writer numbers only after this row is visible (see the head of this file).
    if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${sql.lit(LOG_LOCK)})`.execute(trx);
    const row = await trx
      .insertInto('authorization_changes')
      .values({ entity_type: entityType, entity_id: entityId, changed_at: at.toISOString() })
      .returning('seq')
      .executeTakeFirstOrThrow();
    const seq = Number(row.seq);
    // Delivered to every listening controller when (and only if) the transaction commits.
    if (dialect === 'postgres') await sql`select pg_notify(${CHANGE_CHANNEL}, ${String(seq)})`.execute(trx);
    // Pruning now and then keeps the log short; readers that fall behind it notice the gap and start afresh.
    if (seq % PRUNE_EVERY === 0) await trx.deleteFrom('authorization_changes').where('seq', '<=', seq - KEPT_CHANGES).execute();
    afterCommit(trx, () => store.changes.emit({ entityType, entityId }));
  });
}

export interface AuthorizationChangeLog {
  /** The number and time of the newest change; 0 and 0 when there is none. */
  latest(): Promise<{ seq: number; changedAt: number }>;
  /** The changes after `seq` in order, at most `limit` of them; only those of `types` when given. */
  since(seq: number, limit: number, types?: readonly ChangedEntity[]): Promise<AuthorizationChange[]>;
  /**
   * Whether a reader that has applied everything up to `seq` and now reads `first` next has missed rows: pruned
   * from the log while it was behind. A hole that is not pruning (a PostgreSQL number taken by a transaction that
   * rolled back) is no gap.
   */
  missedAfter(seq: number, first: AuthorizationChange): Promise<boolean>;
}

export function createAuthorizationChangeLog(database: Database): AuthorizationChangeLog {
  const { db } = database;
  return {
    async latest() {
      const row = await db.selectFrom('authorization_changes').select(['seq', 'changed_at']).orderBy('seq', 'desc').limit(1).executeTakeFirst();
      return row ? { seq: Number(row.seq), changedAt: Date.parse(row.changed_at) } : { seq: 0, changedAt: 0 };
    },
    async missedAfter(seq, first) {
      if (first.seq === seq + 1) return false;
      const oldest = await db.selectFrom('authorization_changes').select((eb) => eb.fn.min('seq').as('seq')).executeTakeFirst();
      return Number(oldest?.seq ?? first.seq) > seq + 1;
    },
    async since(seq, limit, types) {
      let query = db.selectFrom('authorization_changes').select(['seq', 'entity_type', 'entity_id', 'changed_at']).where('seq', '>', seq);
      if (types) query = query.where('entity_type', 'in', [...types]);
      const rows = await query
        .orderBy('seq')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ seq: Number(row.seq), entityType: row.entity_type as ChangedEntity, entityId: row.entity_id, changedAt: Date.parse(row.changed_at) }));
    },
  };
}
