/**
 * The writer thread's side of sqlite-writer.ts: a connection of its own to the store's file, on which it runs the
 * writes it is sent, one at a time, each in a transaction of its own taken with the shared write lock
 * (sqlite-write-lock.ts), and answers with what each step did or with the error that rolled the write back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SqliteDriver from 'better-sqlite3';
import { WRITER_THREAD_WRITES, giveBackWriteLock, takeWriteLock, type WriteLock } from './sqlite-write-lock.js';
import { runWriteSteps, type StepStatement, type WriteStep } from './write-steps.js';
import type { WriterReply, WriterRequest } from './sqlite-writer.js';

const { path, words, busyTimeoutMs, fallbackCheckpointPages } = workerData as { path: string; words: Int32Array; busyTimeoutMs: number; fallbackCheckpointPages: number };
const lock: WriteLock = { words };
const db = new SqliteDriver(path, { fileMustExist: true });
// As the controller's connection (database.ts): a commit is durable across a crash of the process in WAL mode.
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
db.pragma(`busy_timeout = ${busyTimeoutMs}`);
// Checkpoints are the checkpointer's (sqlite-checkpointer.ts); this connection copies the log back only past the same
// fallback bound as the controller's, should the checkpointer fall behind or be gone.
db.pragma(`wal_autocheckpoint = ${fallbackCheckpointPages}`);

const statements = new Map<string, SqliteDriver.Statement>();
const prepare = (sql: string): StepStatement => {
  let statement = statements.get(sql);
  if (statement === undefined) {
    statement = db.prepare(sql);
    // The writes are a handful of shapes; a bound keeps a misuse from growing the map without end.
    if (statements.size >= 200) statements.clear();
    statements.set(sql, statement);
  }
  return statement as unknown as StepStatement;
};
const inTransaction = db.transaction((steps: readonly WriteStep[]) => runWriteSteps(prepare, steps));

function write(request: WriterRequest): WriterReply {
  if (!takeWriteLock(lock, WRITER_THREAD_WRITES, busyTimeoutMs)) {
    return { id: request.id, error: { message: 'database is locked', code: 'SQLITE_BUSY' } };
  }
  try {
    // IMMEDIATE: the write lock of SQLite's own is taken at once, as the shared lock already says it may be.
    return { id: request.id, outcomes: inTransaction.immediate(request.steps) };
  } catch (error) {
    const { message, code } = error as { message?: unknown; code?: unknown };
    return { id: request.id, error: { message: String(message ?? error), code: typeof code === 'string' ? code : undefined } };
  } finally {
    giveBackWriteLock(lock, WRITER_THREAD_WRITES);
  }
}

parentPort?.on('message', (request: WriterRequest) => parentPort?.postMessage(write(request)));
parentPort?.postMessage('ready');
