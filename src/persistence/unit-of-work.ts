/**
 * Units of work (issue 13, point 3): a change and everything that goes with it (its audit entry, the rows that
 * depend on it) commit together or not at all, on SQLite and PostgreSQL alike.
 *
 * `atomically` is how a repository makes several statements one: inside a unit of work it joins the caller's
 * transaction (Kysely refuses a transaction inside a transaction), otherwise it opens its own. `unitOfWork` gives
 * a service a way to run work over a scope (its repositories and services) built on one transaction's store.
 *
 * A scope must hold everything the work touches: on SQLite the one connection is held by the transaction, so a
 * query through a store outside the scope would wait for it forever. Keep slow work (password hashing, network
 * fetches) before the unit of work, not inside it.
 */
import type { Kysely } from 'kysely';
import type { Database } from './database.js';
import type { Tables } from './tables.js';

/** What each open transaction (opened by `atomically`) runs once it has committed. */
const commitHooks = new WeakMap<Kysely<Tables>, Array<() => void>>();

/** Runs `work` in a transaction, or in the transaction `db` already is. */
export async function atomically<T>(db: Kysely<Tables>, work: (trx: Kysely<Tables>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  const hooks: Array<() => void> = [];
  const result = await db.transaction().execute((trx) => {
    commitHooks.set(trx, hooks);
    return work(trx);
  });
  for (const hook of hooks) hook();
  return result;
}

/**
 * Runs `hook` once what `db` wrote is committed: at the end of the transaction `db` is (nothing, if it rolls back),
 * or now when `db` is the store itself (its statements commit one by one). Used to tell in-memory copies of rows
 * about a change no earlier than other readers can see it in the store.
 */
export function afterCommit(db: Kysely<Tables>, hook: () => void): void {
  const hooks = db.isTransaction ? commitHooks.get(db) : undefined;
  if (hooks) hooks.push(hook);
  // A transaction opened elsewhere (a migration) has no hooks: told now, and again when the change feed reads the log.
  else hook();
}

/** Runs work over a scope built on one transaction; what the work returns, or nothing written when it throws. */
export type UnitOfWork<Scope> = <T>(work: (scope: Scope) => Promise<T>) => Promise<T>;

/** A unit of work over `database` whose scope `scopeOf` builds from the transaction's store. */
export function unitOfWork<Scope>(database: Database, scopeOf: (store: Database) => Scope): UnitOfWork<Scope> {
  return (work) => atomically(database.db, (trx) => work(scopeOf({ ...database, db: trx })));
}
