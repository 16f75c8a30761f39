/**
 * A fresh, migrated store for one test file: SQLite in memory by default, or a new PostgreSQL database
 * on the server named by SVC_TEST_POSTGRES_URL when SVC_TEST_DB=postgres (dropped again by `close`).
 * On PostgreSQL a migrated database is a copy of a template migrated once per server and set of migrations, rather
 * than every migration run again for each of the suite's hundreds of controllers (their DDL cost the server and the
 * test process about a quarter of a second each). Empty databases, for the migrations' own tests, stay empty.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDriver from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { databaseTargetFromString, openDatabase, type Database, type DatabaseTarget } from '../../src/persistence/database.js';
import { migrateToBefore } from '../../src/persistence/migrate.js';
import { newEntityId } from '../../src/shared/random.js';

export const testDialect: 'sqlite' | 'postgres' = process.env.SVC_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

/** The PostgreSQL server under test. */
function postgresServerUrl(): string {
  const serverUrl = process.env.SVC_TEST_POSTGRES_URL;
  if (!serverUrl) throw new Error('SVC_TEST_DB=postgres needs SVC_TEST_POSTGRES_URL');
  return serverUrl;
}

/** Runs `work` with an administrative connection to the server under test. */
async function asAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: postgresServerUrl() });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** The URL of database `name` on the server under test. */
function databaseUrl(name: string): string {
  const url = new URL(postgresServerUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/** Names the set of migrations: a template made by other migrations (an older checkout, a persistent server) is never used. */
function migrationsFingerprint(): string {
  const dir = join(process.cwd(), 'src', 'persistence', 'migrations');
  const hash = createHash('sha256');
  for (const file of readdirSync(dir).sort()) hash.update(file).update(readFileSync(join(dir, file)));
  return hash.digest('hex').slice(0, 16);
}

let template: Promise<string> | undefined;

/**
 * The migrated template's name, made by the first test process that needs it. Under an advisory lock, so the others
 * wait for it rather than build their own; built under another name and renamed when complete, so a process that
 * died halfway leaves nothing another would copy.
 */
function migratedTemplate(): Promise<string> {
  template ??= asAdmin(async (admin) => {
    const name = `svc_template_${migrationsFingerprint()}`;
    const building = `${name}_building`;
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', ['svc-test-template']);
    try {
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (found.rowCount === 0) {
        await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
        await admin.query(`CREATE DATABASE ${building}`);
        const database = await openDatabase({ kind: 'postgres', url: databaseUrl(building) });
        await database.close();
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      }
      return name;
    } finally {
      await admin.query('SELECT pg_advisory_unlock(hashtext($1))', ['svc-test-template']);
    }
  });
  return template;
}

/** A target for a new empty database of the dialect under test, and how to remove it afterwards. */
export function newDatabaseTarget(): Promise<{ target: DatabaseTarget; drop(): Promise<void> }> {
  return newTarget(false);
}

/**
 * A target for a new database of the dialect under test with every migration applied (on SQLite, an empty one the
 * opening migrates), and how to remove it afterwards.
 */
export function newMigratedDatabaseTarget(): Promise<{ target: DatabaseTarget; drop(): Promise<void> }> {
  return newTarget(true);
}

async function newTarget(migrated: boolean): Promise<{ target: DatabaseTarget; drop(): Promise<void> }> {
  if (testDialect === 'sqlite') return { target: { kind: 'sqlite', path: ':memory:' }, drop: async () => {} };
  const name = `svc_test_${newEntityId().toLowerCase()}`;
  const from = migrated ? await migratedTemplate() : undefined;
  await asAdmin((admin) => admin.query(from ? `CREATE DATABASE ${name} TEMPLATE ${from}` : `CREATE DATABASE ${name}`));
  return {
    target: { kind: 'postgres', url: databaseUrl(name) },
    drop: () => asAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** Opens a migrated database for a test; `close` also drops a PostgreSQL database. */
export async function openTestDatabase(): Promise<Database> {
  const { target, drop } = await newMigratedDatabaseTarget();
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
