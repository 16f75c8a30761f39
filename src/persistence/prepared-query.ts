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

/** The driver under a store's Kysely instance, for prepared queries run on the store itself. */
export type DirectStore =
  | { kind: 'sqlite'; driver: SqliteDriver.Database; prepare(sql: string): SqliteDriver.Statement; onQuery?(durationMs: number): void }
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

/** Runs one prepared query inside `atomicallyAtOnce`'s transaction: at once, with Kysely's answer. */
export type RunNow = <Values extends Record<string, unknown>, Row>(query: PreparedQuery<Values, Row>, values: Values) => QueryResult<Row>;

/**
 * Runs `work`, prepared queries only, synchronously in one SQLite transaction of its own, straight on the driver (a
 * transaction through Kysely costs more than its point statements): nothing else can run between its statements,
 * and a throw rolls everything back. Undefined, having run nothing, where that cannot be done (PostgreSQL, a
 * transaction, another transaction open on the connection): the caller then uses `atomically`.
 */
export function atomicallyAtOnce<T>(db: Kysely<Tables>, work: (run: RunNow) => T): T | undefined {
  const direct = directStores.get(db);
  if (direct?.kind !== 'sqlite' || direct.driver.inTransaction) return undefined;
  const run: RunNow = (query, values) => {
    const { sql, parameters } = query.compiled(db, values);
    return runOnSqlite(direct, sql, parameters) as never;
  };
  return direct.driver.transaction(() => work(run))();
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

/** Inserts a row; `queryFor(row)` is the prepared query it runs for that row's columns (for `atomicallyAtOnce`). */
export type PreparedInsert<T extends keyof Tables & string> = ((db: Kysely<Tables>, row: Insertable<Tables[T]>) => Promise<QueryResult<never>>) & {
  queryFor(row: Insertable<Tables[T]>): PreparedQuery<Record<string, unknown>, never>;
};
