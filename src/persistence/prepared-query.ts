/**
 * Statements of the login path, built by Kysely once and run again and again with new values (decision 0043).
 * Building a query (its operation tree, the plugins' pass over it, the SQL text) costs more CPU than SQLite takes to
 * run a point insert, and a PKCE login runs up to seven statements; a prepared query pays for it once per dialect.
 *
 * A query is written as usual, with `param('name')` where a value goes; the parameters Kysely compiles from those
 * markers are filled from the values given at each run, the others are kept as compiled. On PostgreSQL the statement
 * is also named (prepared-statement-names.ts), so the server parses and plans it once per connection.
 *
 * Rules that keep a prepared query equal to the query built each time:
 * - Values only through `param`: a marker Kysely would put into the SQL text (not a parameter) is refused at build.
 * - Booleans are turned into 1/0 on SQLite at each run, as the SQLite values plugin does when a query is built.
 * - Name the columns a prepared statement returns (no `select *`, no `returning *`): a PostgreSQL statement
 *   prepared before another controller's migration added a column would otherwise fail ("cached plan must not
 *   change result type").
 *
 * Run on the store itself (not in a transaction), a prepared query goes straight to the driver (`directStore`):
 * Kysely's executor (its connection provider, plugins and query log, each a promise or more) costs a point statement
 * as much as running it. The answer has Kysely's shape, and the query is timed for the metrics as Kysely's log would.
 * On SQLite this happens only while no transaction is open on the one connection (a Kysely transaction awaiting
 * between its statements), or the statement would join it; then the query goes through Kysely, which waits for it.
 */
import { CompiledQuery, type Compilable, type Insertable, type InsertQueryBuilder, type InsertResult, type Kysely, type QueryResult } from 'kysely';
import type SqliteDriver from 'better-sqlite3';
import type pg from 'pg';
import type { Tables } from './tables.js';
import { nameOfPreparedStatement } from './prepared-statement-names.js';
import { inEventLoopTurn, type SqliteWriter } from './sqlite-writer.js';
import type { WriteLock } from './sqlite-write-lock.js';
import { atomically } from './unit-of-work.js';
import { runWriteSteps, type StepOutcome, type StepStatement, type WriteStep } from './write-steps.js';

/** The driver under a store's Kysely instance, for prepared queries run on the store itself. */
export type DirectStore =
  | {
      kind: 'sqlite';
      driver: SqliteDriver.Database;
      prepare(sql: string): SqliteDriver.Statement;
      onQuery?(durationMs: number): void;
      /** The writer thread and the lock its connection shares with this one (sqlite-writer.ts), for a store in a file. */
      writer?: { thread: SqliteWriter; lock: WriteLock; timeoutMs: number };
    }
  | { kind: 'postgres'; pool: pg.Pool; onQuery?(durationMs: number): void };

const directStores = new WeakMap<Kysely<Tables>, DirectStore>();

/** Lets prepared queries run on `db` (a store's own Kysely instance, never a transaction) go straight to its driver. */
export function registerDirectStore(db: Kysely<Tables>, store: DirectStore): void {
  directStores.set(db, store);
}

/** Runs a statement on SQLite's connection at once, with Kysely's answer (rows for a reader, else counts). */
function runOnSqlite(store: Extract<DirectStore, { kind: 'sqlite' }>, sql: string, parameters: unknown[]): QueryResult<unknown> {
  const started = performance.now();
  try {
    const statement = store.prepare(sql);
    if (statement.reader) return { rows: statement.all(parameters) };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  } finally {
    store.onQuery?.(performance.now() - started);
  }
}

/** Runs a named statement on a PostgreSQL connection of the pool, with Kysely's answer. */
async function runOnPostgres(store: Extract<DirectStore, { kind: 'postgres' }>, sql: string, parameters: unknown[]): Promise<QueryResult<unknown>> {
  const started = performance.now();
  try {
    const { command, rowCount, rows } = await store.pool.query({ name: nameOfPreparedStatement(sql), text: sql, values: parameters });
    const counted = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
    return { numAffectedRows: counted ? BigInt(rowCount ?? 0) : undefined, rows: rows ?? [] };
  } finally {
    store.onQuery?.(performance.now() - started);
  }
}

/** The prefix of a marker: a string no value of ours starts with. */
const MARKER = '\u0000svc-param:';

type Slot = { name: string } | { value: unknown };

interface Plan {
  sql: string;
  slots: Slot[];
  sqlite: boolean;
}

/** Runs the prepared query on `db` (the store, or a transaction) with `values`. */
export type PreparedQuery<Values, Row> = ((db: Kysely<Tables>, values: Values) => Promise<QueryResult<Row>>) & {
  /** The SQL text and parameters it runs on `db` with `values`. */
  compiled(db: Kysely<Tables>, values: Values): { sql: string; parameters: unknown[] };
};

/**
 * @example
 * const insertSession = prepareQuery<{ id: string; name: string }, never>((db, param) =>
 *   db.insertInto('sessions').values({ id: param('id'), name: param('name') }));
 * await insertSession(database.db, { id, name });
 */
export function prepareQuery<Values extends Record<string, unknown>, Row = never>(
  build: (db: Kysely<Tables>, param: <K extends keyof Values & string>(name: K) => Values[K]) => Compilable<Row>,
): PreparedQuery<Values, Row> {
  // One plan per dialect adapter (a transaction shares its store's), made at the first run on it.
  const plans = new Map<unknown, Plan>();

  function planFor(db: Kysely<Tables>): Plan {
    const adapter = db.getExecutor().adapter;
    const known = plans.get(adapter.constructor);
    if (known) return known;
    const compiled = build(db, ((name: string) => `${MARKER}${name}`) as never).compile();
    if (compiled.sql.includes(MARKER)) throw new Error(`a prepared query put a parameter into its SQL text: ${compiled.sql}`);
    const slots: Slot[] = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith(MARKER) ? { name: p.slice(MARKER.length) } : { value: p }));
    const sqlite = adapter.constructor.name === 'SqliteAdapter';
    const plan: Plan = { sql: compiled.sql, slots, sqlite };
    if (!sqlite) nameOfPreparedStatement(compiled.sql);
    plans.set(adapter.constructor, plan);
    return plan;
  }

  function compiled(db: Kysely<Tables>, values: Values) {
    const plan = planFor(db);
    const parameters = plan.slots.map((slot) => {
      if (!('name' in slot)) return slot.value;
      const value = values[slot.name];
      if (value === undefined) throw new Error(`prepared query: no value for '${slot.name}'`);
      return plan.sqlite && typeof value === 'boolean' ? (value ? 1 : 0) : value;
    });
    return { sql: plan.sql, parameters };
  }

  const run = async (db: Kysely<Tables>, values: Values): Promise<QueryResult<Row>> => {
    const { sql, parameters } = compiled(db, values);
    const direct = directStores.get(db);
    if (direct?.kind === 'postgres') return (await runOnPostgres(direct, sql, parameters)) as QueryResult<Row>;
    if (direct?.kind === 'sqlite' && !direct.driver.inTransaction) return runOnSqlite(direct, sql, parameters) as QueryResult<Row>;
    return await db.executeQuery(CompiledQuery.raw(sql, parameters) as CompiledQuery<Row>);
  };
  return Object.assign(run, { compiled });
}

/** Runs `work` (a transaction better-sqlite3 opens itself, unseen by lockingWrites) in the event loop's turn at writing. */
function inEventLoopTurnOf<T>(direct: Extract<DirectStore, { kind: 'sqlite' }>, work: () => T): T {
  return direct.writer ? inEventLoopTurn(direct.writer.lock, direct.driver, direct.writer.timeoutMs, work) : work();
}

/** A statement of `writeAtomically`: a prepared query with its values; `stopUnlessChanged` as in write-steps.ts. */
export interface PreparedStep {
  readonly query: PreparedQuery<any, unknown>;
  readonly values: Record<string, unknown>;
  readonly stopUnlessChanged?: boolean;
}

/**
 * Runs `steps` (prepared queries) as one transaction, each after the one before unless a `stopUnlessChanged` step
 * changed no row; the outcomes of the steps that ran. On a SQLite store in a file they run on the writer thread
 * (sqlite-writer.ts) and the event loop only waits; on one without (`:memory:`, or the thread gone) at once on the
 * driver; in a transaction, or on PostgreSQL, through Kysely, joining `db`'s transaction or in one of their own.
 */
export async function writeAtomically(db: Kysely<Tables>, steps: readonly PreparedStep[]): Promise<StepOutcome[]> {
  const compiled: WriteStep[] = steps.map(({ query, values, stopUnlessChanged }) => ({ ...query.compiled(db, values), stopUnlessChanged: stopUnlessChanged ?? false }));
  const direct = directStores.get(db);
  if (direct?.kind === 'sqlite') {
    const prepare = (sql: string) => direct.prepare(sql) as unknown as StepStatement;
    const outcomes =
      (await direct.writer?.thread.write(compiled)) ??
      (direct.driver.inTransaction ? undefined : inEventLoopTurnOf(direct, () => direct.driver.transaction(() => runWriteSteps(prepare, compiled))()));
    if (outcomes) {
      // Run beside Kysely, so timed here for the metrics, as runOnSqlite times a prepared query.
      for (const outcome of outcomes) direct.onQuery?.(outcome.durationMs);
      return outcomes;
    }
  }
  return atomically(db, async (trx) => {
    const outcomes: StepOutcome[] = [];
    for (const step of compiled) {
      const started = performance.now();
      const result = await trx.executeQuery(CompiledQuery.raw(step.sql, [...step.parameters]));
      const changes = result.numAffectedRows !== undefined ? Number(result.numAffectedRows) : result.rows.length;
      outcomes.push({ rows: result.rows, changes, durationMs: performance.now() - started });
      if (step.stopUnlessChanged && changes === 0) break;
    }
    return outcomes;
  });
}

/**
 * Prepared queries made on demand, one per set of columns (`columns` joined is the key): for statements whose columns
 * are those of the rows given, so a column list is written once, where the rows are made.
 */
export function perColumnSet<Q>(make: (columns: readonly string[][]) => Q): (...columns: string[][]) => Q {
  const made = new Map<string, Q>();
  return (...columns) => {
    const key = columns.map((set) => set.join()).join('|');
    let query = made.get(key);
    if (query === undefined) {
      query = make(columns);
      made.set(key, query);
    }
    return query;
  };
}

/**
 * A prepared insert of one row into `table`: the columns are those of the row given, prepared once per set of
 * columns; `finish` adds what follows the values (an `on conflict` clause).
 *
 * @example const insertSession = preparedInsert('api_sessions'); await insertSession(db, row);
 */
export function preparedInsert<T extends keyof Tables & string>(
  table: T,
  finish?: (insert: InsertQueryBuilder<Tables, T, InsertResult>) => Compilable<never>,
): PreparedInsert<T> {
  const insertOf = perColumnSet(([columns = []]) =>
    prepareQuery<Record<string, unknown>>((store, param) => {
      const values = Object.fromEntries(columns.map((column) => [column, param(column)])) as Insertable<Tables[T]>;
      const query = store.insertInto(table).values(values as never) as unknown as InsertQueryBuilder<Tables, T, InsertResult>;
      return finish ? finish(query) : (query as unknown as Compilable<never>);
    }),
  );
  const queryFor = (row: Insertable<Tables[T]>) => insertOf(Object.keys(row));
  return Object.assign((db: Kysely<Tables>, row: Insertable<Tables[T]>) => queryFor(row)(db, row as Record<string, unknown>), { queryFor });
}

/** Inserts a row; `queryFor(row)` is the prepared query it runs for that row's columns (for `writeAtomically`). */
export type PreparedInsert<T extends keyof Tables & string> = ((db: Kysely<Tables>, row: Insertable<Tables[T]>) => Promise<QueryResult<never>>) & {
  queryFor(row: Insertable<Tables[T]>): PreparedQuery<Record<string, unknown>, never>;
};
