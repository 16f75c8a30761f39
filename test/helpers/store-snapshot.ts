/**
 * Everything in the store, for tests that must show a request changed nothing: every row of every table (found by
 * introspection, so a new table is included the day it is added), as sorted canonical text. Columns that change on
 * their own while a controller runs (legacy session activity, flushed by a timer) are left out.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/persistence/database.js';

const VOLATILE_COLUMNS: Record<string, readonly string[]> = {
  api_sessions: ['last_activity_at'],
  // Written by the controller's own heartbeat timer (decision 0034), whatever requests arrive.
  controllers: ['last_heartbeat_at', 'is_online'],
};

export type StoreSnapshot = Record<string, string[]>;

/**
 * The tables of each open store, listed once: the schema is the migrations' and does not change while a test runs,
 * and the introspection query (the catalogue join on PostgreSQL) cost more than the rows in the bad-input corpus,
 * which takes two snapshots for each of its operations.
 */
const tablesOf = new WeakMap<Database, Promise<string[]>>();

function tables(database: Database, db: Kysely<Record<string, Record<string, unknown>>>): Promise<string[]> {
  let names = tablesOf.get(database);
  if (!names) {
    names = db.introspection.getTables().then((found) => found.map((t) => t.name).sort());
    tablesOf.set(database, names);
  }
  return names;
}

export async function storeSnapshot(database: Database): Promise<StoreSnapshot> {
  const db = database.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  if (database.dialect === 'postgres') return postgresSnapshot(db, await tables(database, db));
  const snapshot: StoreSnapshot = {};
  for (const table of await tables(database, db)) {
    const rows = await db.selectFrom(table).selectAll().execute();
    const volatile = VOLATILE_COLUMNS[table] ?? [];
    snapshot[table] = rows
      .map((row) => JSON.stringify(Object.keys(row).sort().filter((column) => !volatile.includes(column)).map((column) => [column, String(row[column])])))
      .sort();
  }
  return snapshot;
}

/**
 * PostgreSQL: every table in one query (a round trip per table, forty of them twice per operation, was most of the
 * bad-input corpus's time there), each row as its jsonb text, whose keys PostgreSQL orders itself. The rows compare
 * with another snapshot taken the same way, not with a SQLite one.
 */
async function postgresSnapshot(db: Kysely<Record<string, Record<string, unknown>>>, names: string[]): Promise<StoreSnapshot> {
  const parts = names.map((table) => {
    const dropped = (VOLATILE_COLUMNS[table] ?? []).map((column) => sql` - ${column}::text`);
    return sql`SELECT ${table}::text AS t, (to_jsonb(x)${sql.join(dropped, sql``)})::text AS r FROM ${sql.table(table)} x`;
  });
  const { rows } = await sql<{ t: string; r: string }>`${sql.join(parts, sql` UNION ALL `)}`.execute(db);
  const snapshot: StoreSnapshot = Object.fromEntries(names.map((table) => [table, [] as string[]]));
  for (const row of rows) snapshot[row.t]!.push(row.r);
  for (const table of names) snapshot[table]!.sort();
  return snapshot;
}

/** The tables whose rows differ between two snapshots, with the rows only one side has. */
export function snapshotDifference(before: StoreSnapshot, after: StoreSnapshot): Record<string, { gone: string[]; added: string[] }> {
  const out: Record<string, { gone: string[]; added: string[] }> = {};
  for (const table of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = new Set(before[table] ?? []);
    const is = new Set(after[table] ?? []);
    const gone = [...was].filter((row) => !is.has(row));
    const added = [...is].filter((row) => !was.has(row));
    if (gone.length > 0 || added.length > 0) out[table] = { gone, added };
  }
  return out;
}
