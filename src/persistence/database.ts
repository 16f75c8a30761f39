/**
 * Opens the store: SQLite (embedded default, WAL) through better-sqlite3, or PostgreSQL through pg,
 * both behind Kysely, and brings the schema up to date with the versioned migrations.
 * Nothing here knows business rules; repositories sit on top.
 */
import SqliteDriver from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import { createChangeSignal, type ChangeSignal } from './change-signal.js';
import { migrateToLatest } from './migrate.js';
import { FALLBACK_CHECKPOINT_PAGES, startSqliteCheckpointer } from './sqlite-checkpointer.js';
import { newWriteLock } from './sqlite-write-lock.js';
import { lockingWrites, startSqliteWriter } from './sqlite-writer.js';
import { SqliteValuesPlugin } from './sqlite-values-plugin.js';
import { withStatementCache } from './sqlite-statement-cache.js';
import { withNamedStatements } from './prepared-statement-names.js';
import { registerDirectStore } from './prepared-query.js';
import type { Tables } from './tables.js';

export type DialectName = 'sqlite' | 'postgres';

/** Where the data lives: a SQLite file (or `:memory:`), or a PostgreSQL connection URL. */
export type DatabaseTarget = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

export interface Database {
  readonly db: Kysely<Tables>;
  readonly dialect: DialectName;
  /** Changes this controller commits, told to its in-memory copies at commit (change-signal.ts). */
  readonly changes: ChangeSignal;
  close(): Promise<void>;
}

export interface OpenOptions {
  /**
   * Told about lost PostgreSQL connections, idle or busy (the server restarted or became unreachable, an
   * administrator ended them). Without a listener pg would raise them as uncaught exceptions and end the process;
   * the pool replaces the connection, and a query that was running on it fails.
   */
  onConnectionError?(error: Error): void;
  /** Told how long every query took, in milliseconds, failed ones too (the store query histogram of the metrics). */
  onQuery?(durationMs: number): void;
}

/** Opens the store and runs pending migrations; throws with the migration name when one fails. */
export async function openDatabase(target: DatabaseTarget, options: OpenOptions = {}): Promise<Database> {
  // Kysely times each query only when a log function is given, so none is given without a listener.
  const log = options.onQuery ? queryTimer(options.onQuery) : undefined;
  const database: Database & { writerStarted?: Promise<boolean> } =
    target.kind === 'sqlite' ? openSqlite(target.path, log, options.onQuery) : openPostgres(target.url, options.onConnectionError ?? (() => {}), log, options.onQuery);
  try {
    await migrateToLatest(database.db);
    // A store in a file is ready once its writer thread is (or has failed to start, leaving writes here): from then on
    // writes sent to it are not made on the event loop.
    await database.writerStarted;
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

/** Kysely's `log` option reporting every query's time, executed or failed. */
function queryTimer(onQuery: (durationMs: number) => void): (event: LogEvent) => void {
  return (event) => onQuery(event.queryDurationMillis);
}

/** How long a SQLite connection waits for another's write before failing with SQLITE_BUSY (503 for a request). */
const BUSY_TIMEOUT_MS = 5_000;

function openSqlite(path: string, log: ((event: LogEvent) => void) | undefined, onQuery: OpenOptions['onQuery']): Database & { writerStarted?: Promise<boolean> } {
  const driver = new SqliteDriver(path);
  // WAL lets readers proceed while one writer commits; NORMAL sync is durable across process crashes in WAL mode.
  driver.pragma('journal_mode = WAL');
  driver.pragma('synchronous = NORMAL');
  driver.pragma('foreign_keys = ON');
  driver.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // A store in a file has a writer thread (sqlite-writer.ts) that takes turns at writing with this connection.
  const lock = newWriteLock();
  const thread = startSqliteWriter(path, lock, { busyTimeoutMs: BUSY_TIMEOUT_MS, fallbackCheckpointPages: FALLBACK_CHECKPOINT_PAGES });
  const cached = withStatementCache(driver);
  const statements = thread ? lockingWrites(cached, driver, lock, BUSY_TIMEOUT_MS) : cached;
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: statements }), plugins: [new SqliteValuesPlugin()], ...(log ? { log } : {}) });
  // Prepared queries run on the store go straight to the driver, through the same statement cache.
  registerDirectStore(db, {
    kind: 'sqlite',
    driver,
    prepare: (sql) => statements.prepare(sql) as unknown as SqliteDriver.Statement,
    ...(onQuery ? { onQuery } : {}),
    ...(thread ? { writer: { thread, lock, timeoutMs: BUSY_TIMEOUT_MS } } : {}),
  });
  // Checkpoints run beside the event loop (sqlite-checkpointer.ts); stopped first with the writer, so that the
  // controller's connection is the last one and its close checkpoints what is left and removes the log.
  const checkpointer = startSqliteCheckpointer(driver, path);
  const close = async () => {
    await thread?.stop();
    await checkpointer?.stop();
    await db.destroy();
  };
  return { db, dialect: 'sqlite', changes: createChangeSignal(), close, ...(thread ? { writerStarted: thread.ready } : {}) };
}

function openPostgres(url: string, onConnectionError: (error: Error) => void, log: ((event: LogEvent) => void) | undefined, onQuery: OpenOptions['onQuery']): Database {
  // A connection not made within 5 s fails the request (503) rather than holding it while the store is unreachable.
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5_000 });
  // pg announces a lost connection as an 'error' event of its client, and an event without a listener ends the
  // process. The pool listens only while a connection is idle; a connection checked out by a query when the store
  // goes away needs a listener of its own (its query fails too, and that failure answers the request with 503).
  // Each connection's own listener reports, so the pool's re-announcement of idle ones is not reported twice.
  pool.on('connect', (client) => client.on('error', onConnectionError));
  pool.on('error', () => undefined);
  // Prepared queries' statements run by name (prepared-statement-names.ts); every other query as pg sends it.
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: withNamedStatements(pool) }), ...(log ? { log } : {}) });
  // Prepared queries run on the store go straight to the pool, by name.
  registerDirectStore(db, { kind: 'postgres', pool, ...(onQuery ? { onQuery } : {}) });
  return { db, dialect: 'postgres', changes: createChangeSignal(), close: () => db.destroy() };
}

/** Reads a config `db` value: a `postgres://` (or `postgresql://`) URL, else a SQLite file path. */
export function databaseTargetFromString(value: string): DatabaseTarget {
  return /^postgres(ql)?:\/\//.test(value) ? { kind: 'postgres', url: value } : { kind: 'sqlite', path: value };
}
