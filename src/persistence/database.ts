/**
 * Opens the store: SQLite (embedded default, WAL) through better-sqlite3, or PostgreSQL through pg,
 * both behind Kysely, and brings the schema up to date with the versioned migrations.
 * Nothing here knows business rules; repositories sit on top.
 */
import SqliteDriver from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from './migrate.js';
import { SqliteValuesPlugin } from './sqlite-values-plugin.js';
import { withStatementCache } from './sqlite-statement-cache.js';
import type { Tables } from './tables.js';

export type DialectName = 'sqlite' | 'postgres';

/** Where the data lives: a SQLite file (or `:memory:`), or a PostgreSQL connection URL. */
export type DatabaseTarget = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

export interface Database {
  readonly db: Kysely<Tables>;
  readonly dialect: DialectName;
  close(): Promise<void>;
}

export interface OpenOptions {
  /**
   * Told about errors of idle PostgreSQL connections (the server restarted, an administrator ended them). Without
   * a listener pg would raise them as uncaught exceptions and end the process; the pool replaces the connection.
   */
  onConnectionError?(error: Error): void;
}

/** Opens the store and runs pending migrations; throws with the migration name when one fails. */
export async function openDatabase(target: DatabaseTarget, options: OpenOptions = {}): Promise<Database> {
  const database = target.kind === 'sqlite' ? openSqlite(target.path) : openPostgres(target.url, options.onConnectionError ?? (() => {}));
  try {
    await migrateToLatest(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

function openSqlite(path: string): Database {
  const driver = new SqliteDriver(path);
  // WAL lets readers proceed while one writer commits; NORMAL sync is durable across process crashes in WAL mode.
  driver.pragma('journal_mode = WAL');
  driver.pragma('synchronous = NORMAL');
  driver.pragma('foreign_keys = ON');
  driver.pragma('busy_timeout = 5000');
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: withStatementCache(driver) }), plugins: [new SqliteValuesPlugin()] });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

function openPostgres(url: string, onConnectionError: (error: Error) => void): Database {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', onConnectionError);
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

/** Reads a config `db` value: a `postgres://` (or `postgresql://`) URL, else a SQLite file path. */
export function databaseTargetFromString(value: string): DatabaseTarget {
  return /^postgres(ql)?:\/\//.test(value) ? { kind: 'postgres', url: value } : { kind: 'sqlite', path: value };
}
