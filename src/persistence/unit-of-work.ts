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

/** Runs `work` in a transaction, or in the transaction `db` already is. */
export function atomically<T>(db: Kysely<Tables>, work: (trx: Kysely<Tables>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

/** Runs work over a scope built on one transaction; what the work returns, or nothing written when it throws. */
export type UnitOfWork<Scope> = <T>(work: (scope: Scope) => Promise<T>) => Promise<T>;

/** A unit of work over `database` whose scope `scopeOf` builds from the transaction's store. */
export function unitOfWork<Scope>(database: Database, scopeOf: (store: Database) => Scope): UnitOfWork<Scope> {
  return (work) => atomically(database.db, (trx) => work(scopeOf({ ...database, db: trx })));
}
