/**
 * Indexes that answer a list's page sorted by name on PostgreSQL (issue 45: the console's lists at a million
 * identities). Lists order text byte-wise on both stores (`name collate "C"`, query/compile.ts orderedColumn), and
 * PostgreSQL cannot serve that order from the `unique(name)` index, which sorts by the database's locale: the first
 * page of a million identities sorted every row (about 450 ms measured). An index in the list's own order
 * (`collate "C"`, nulls first, which read backward is the descending order with nulls last) reads 25 rows instead.
 * SQLite compares text byte-wise already, so its unique index serves the same order and nothing is added there.
 */
import { sql, PostgresAdapter, type Kysely, type Migration } from 'kysely';

/** The managed collections with names that the console and the CLI list sorted by name. */
const TABLES = [
  'identities',
  'services',
  'edge_routers',
  'configs',
  'config_types',
  'service_policies',
  'edge_router_policies',
  'service_edge_router_policies',
  'posture_checks',
  'auth_policies',
  'cas',
  'external_jwt_signers',
];

export const nameOrderIndexes: Migration = {
  async up(db: Kysely<any>) {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
    for (const table of TABLES) {
      await sql`create index ${sql.id(`${table}_name_bytewise`)} on ${sql.table(table)} (name collate "C" asc nulls first)`.execute(db);
    }
  },
};
