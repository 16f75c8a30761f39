/**
 * Everything in the store, for tests that must show a request changed nothing: every row of every table (found by
 * introspection, so a new table is included the day it is added), as sorted canonical text. Columns that change on
 * their own while a controller runs (legacy session activity, flushed by a timer) are left out.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../src/persistence/database.js';

const VOLATILE_COLUMNS: Record<string, readonly string[]> = {
  api_sessions: ['last_activity_at'],
  // Written by the controller's own heartbeat timer (decision 0034), whatever requests arrive.
  controllers: ['last_heartbeat_at', 'is_online'],
};

export type StoreSnapshot = Record<string, string[]>;

export async function storeSnapshot(database: Database): Promise<StoreSnapshot> {
  const db = database.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const snapshot: StoreSnapshot = {};
  for (const table of (await db.introspection.getTables()).map((t) => t.name).sort()) {
    const rows = await db.selectFrom(table).selectAll().execute();
    const volatile = VOLATILE_COLUMNS[table] ?? [];
    snapshot[table] = rows
      .map((row) => JSON.stringify(Object.keys(row).sort().filter((column) => !volatile.includes(column)).map((column) => [column, String(row[column])])))
      .sort();
  }
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
