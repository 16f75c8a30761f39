/**
 * A fresh, migrated store for one test file: SQLite in memory by default, or a new PostgreSQL database
 * on the server named by SVC_TEST_POSTGRES_URL when SVC_TEST_DB=postgres (dropped again by `close`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDriver from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { databaseTargetFromString, openDatabase, type Database, type DatabaseTarget } from '../../src/persistence/database.js';
import { migrateToBefore } from '../../src/persistence/migrate.js';
import { newEntityId } from '../../src/shared/random.js';

export const testDialect: 'sqlite' | 'postgres' = process.env.SVC_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

/** A target for a new empty database of the dialect under test, and how to remove it afterwards. */
export async function newDatabaseTarget(): Promise<{ target: DatabaseTarget; drop(): Promise<void> }> {
  if (testDialect === 'sqlite') return { target: { kind: 'sqlite', path: ':memory:' }, drop: async () => {} };
  const serverUrl = process.env.SVC_TEST_POSTGRES_URL;
  if (!serverUrl) throw new Error('SVC_TEST_DB=postgres needs SVC_TEST_POSTGRES_URL');
  const name = `svc_test_${newEntityId().toLowerCase()}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    target: { kind: 'postgres', url: url.toString() },
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** Opens a migrated database for a test; `close` also drops a PostgreSQL database. */
export async function openTestDatabase(): Promise<Database> {
  const { target, drop } = await newDatabaseTarget();
  const database = await openDatabase(target);
  return {
    ...database,
    async close() {
      await database.close();
      await drop();
    },
  };
}

/**
 * A store that outlives one controller, as the `db` config value: a new PostgreSQL database, or a SQLite file in a
 * temporary folder (not `:memory:`, so a second process-local controller opens the same data). `drop` removes it.
 */
export async function newSharedDatabase(): Promise<{ db: string; drop(): Promise<void> }> {
  if (testDialect === 'postgres') {
    const { target, drop } = await newDatabaseTarget();
    return { db: (target as { url: string }).url, drop };
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-db-'));
  return { db: join(dir, 'svc.sqlite'), drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A store opened without the application's plugins, as an older release left it: how migration tests write rows
 * the way that release did before running the migration under test.
 */
export function openRawDatabase(target: DatabaseTarget): Kysely<any> {
  if (target.kind === 'postgres') return new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: target.url, max: 2 }) }) });
  const driver = new SqliteDriver(target.path);
  driver.pragma('foreign_keys = ON');
  return new Kysely<any>({ dialect: new SqliteDialect({ database: driver }) });
}

/** Booleans as each dialect stores them, for rows written without the repositories' value plugin. */
export const storedBool = (value: boolean) => (testDialect === 'sqlite' ? Number(value) : value);

/**
 * A store as an older release left it, for a migration's test: migrated up to just before `migration`, opened without
 * the application's plugins. `close` closes and removes it.
 */
export async function storeBefore(migration: string): Promise<{ raw: Kysely<any>; close(): Promise<void> }> {
  const shared = await newSharedDatabase();
  const raw = openRawDatabase(databaseTargetFromString(shared.db));
  await migrateToBefore(raw, migration);
  return {
    raw,
    async close() {
      await raw.destroy();
      await shared.drop();
    },
  };
}

/** An identity row as the releases before the authorization model (migration 0012) wrote it. */
export function earlyIdentityRow(id: string, at: string, roleAttributes: string[] = []) {
  return {
    id,
    name: `identity-${id}`,
    type_id: 'Default',
    is_admin: storedBool(false),
    is_default_admin: storedBool(false),
    auth_policy_id: 'default',
    external_id: null,
    role_attributes: JSON.stringify(roleAttributes),
    tags: '{}',
    disabled: storedBool(false),
    disabled_at: null,
    disabled_until: null,
    created_at: at,
    updated_at: at,
  };
}
