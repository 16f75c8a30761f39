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
 */
import { CompiledQuery, type Compilable, type Insertable, type InsertQueryBuilder, type InsertResult, type Kysely, type QueryResult } from 'kysely';
import type { Tables } from './tables.js';
import { nameOfPreparedStatement } from './prepared-statement-names.js';

/** The prefix of a marker: a string no value of ours starts with. */
const MARKER = '\u0000svc-param:';

type Slot = { name: string } | { value: unknown };

interface Plan {
  sql: string;
  slots: Slot[];
  sqlite: boolean;
}

/** Runs the prepared query on `db` (the store, or a transaction) with `values`. */
export type PreparedQuery<Values, Row> = (db: Kysely<Tables>, values: Values) => Promise<QueryResult<Row>>;

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

  return async (db, values) => {
    const plan = planFor(db);
    const parameters = plan.slots.map((slot) => {
      if (!('name' in slot)) return slot.value;
      const value = values[slot.name];
      if (value === undefined) throw new Error(`prepared query: no value for '${slot.name}'`);
      return plan.sqlite && typeof value === 'boolean' ? (value ? 1 : 0) : value;
    });
    return await db.executeQuery(CompiledQuery.raw(plan.sql, parameters) as CompiledQuery<Row>);
  };
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
): (db: Kysely<Tables>, row: Insertable<Tables[T]>) => Promise<QueryResult<never>> {
  const insertOf = perColumnSet(([columns = []]) =>
    prepareQuery<Record<string, unknown>>((store, param) => {
      const values = Object.fromEntries(columns.map((column) => [column, param(column)])) as Insertable<Tables[T]>;
      const query = store.insertInto(table).values(values as never) as unknown as InsertQueryBuilder<Tables, T, InsertResult>;
      return finish ? finish(query) : (query as unknown as Compilable<never>);
    }),
  );
  return (db, row) => insertOf(Object.keys(row))(db, row as Record<string, unknown>);
}
