/**
 * SQLite writes off the event loop (decision 0053). better-sqlite3 runs every statement on the thread that calls it,
 * and a write's commit (its B-tree work, its pages appended to the log, the file locks) was the larger part of what a
 * refresh grant cost the event loop. A worker thread with a connection of its own to the same file
 * (sqlite-writer-thread.ts) runs the writes it is sent as data (write-steps.ts), one at a time, each in a transaction
 * of its own, while the event loop serves other requests.
 *
 * The event loop's connection still writes too (everything not sent here, and every Kysely transaction), so the two
 * take turns through a lock in shared memory (sqlite-write-lock.ts): `lockingWrites` wraps the controller's
 * statements so that a writing statement, or a transaction from its `begin` to its end, holds it. A write answered
 * here is committed: a read on the event loop after it sees it, as WAL readers see every commit made before they start.
 *
 * Until the thread has opened its connection, and should it be gone (it failed to start, or died), `write` answers
 * undefined and callers write on the event loop as before; a write it was running when it died fails.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type SqliteDriver from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { EVENT_LOOP_WRITES, WRITER_THREAD_WRITES, giveBackWriteLock, holdsWriteLock, takeWriteLock, type WriteLock } from './sqlite-write-lock.js';
import type { StepOutcome, WriteStep } from './write-steps.js';

/** A write sent to the thread. */
export interface WriterRequest {
  readonly id: number;
  readonly steps: readonly WriteStep[];
}

/** The thread's answer: what each step did, or why the write was rolled back (the driver's message and code). */
export type WriterReply = { readonly id: number; readonly outcomes: StepOutcome[] } | { readonly id: number; readonly error: { message: string; code: string | undefined } };

export interface SqliteWriter {
  /**
   * Runs `steps` as one transaction on the writer thread; undefined, having sent nothing, while the thread is not
   * ready (starting, or gone).
   */
  write(steps: readonly WriteStep[]): Promise<StepOutcome[]> | undefined;
  /** Settles once the thread has opened its connection (true) or is gone without having done so (false). */
  readonly ready: Promise<boolean>;
  /** Ends the thread and its connection; writes still running fail. */
  stop(): Promise<void>;
}

export interface SqliteWriterOptions {
  /** How long either side waits for the other's write before giving up with SQLITE_BUSY (the connection's busy_timeout). */
  busyTimeoutMs: number;
  /** The log size, in pages, past which the thread's connection checkpoints by itself (sqlite-checkpointer.ts). */
  fallbackCheckpointPages: number;
  /** How long the thread may take to open its connection before it is given up (WRITER_START_TIMEOUT_MS). */
  startTimeoutMs?: number;
}

/** How long the writer thread may take to start and open its connection; a loaded machine takes a few hundred ms. */
export const WRITER_START_TIMEOUT_MS = 10_000;

/** An error as the driver would have thrown it on this thread: its message, and its code for store-errors.ts. */
function storeError(error: { message: string; code: string | undefined }): Error {
  return Object.assign(new Error(error.message), { name: 'SqliteError', code: error.code });
}

/**
 * The thread's entry: the compiled module beside this one, or, when this module runs as TypeScript (tests, under
 * tsx), a bootstrap that registers tsx in the thread first (a worker does not inherit the loader hooks of its parent).
 */
function threadEntry(): { source: URL | string; eval: boolean } {
  const entry = new URL(`./sqlite-writer-thread${extname(fileURLToPath(import.meta.url))}`, import.meta.url);
  if (!entry.pathname.endsWith('.ts')) return { source: entry, eval: false };
  const tsx = import.meta.resolve('tsx/esm/api');
  return { source: `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); });`, eval: true };
}

/**
 * Starts the writer thread for the store at `path`, sharing `lock` with the controller's connection (wrapped with
 * `lockingWrites`). Undefined for a database with no file (`:memory:`, ''): a second connection would see another one.
 */
export function startSqliteWriter(path: string, lock: WriteLock, options: SqliteWriterOptions): SqliteWriter | undefined {
  if (path === '' || path === ':memory:' || path.startsWith('file::memory:')) return undefined;
  const entry = threadEntry();
  const worker = new Worker(entry.source, { eval: entry.eval, workerData: { path, words: lock.words, ...options }, execArgv: [] });
  const pending = new Map<number, { resolve(outcomes: StepOutcome[]): void; reject(error: Error): void }>();
  let nextId = 0;
  // Writes go to the thread once it has opened its connection; until then, or should it fail to, they stay here.
  let ready = false;
  let gone = false;
  let settleReady: (opened: boolean) => void = () => {};
  const readiness = new Promise<boolean>((resolve) => (settleReady = resolve));
  const end = (error: Error) => {
    gone = true;
    settleReady(false);
    // A thread ended while it held the lock (stopped, or failed in a write) never gives it back itself.
    giveBackWriteLock(lock, WRITER_THREAD_WRITES);
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  };
  worker.on('message', (reply: WriterReply | 'ready') => {
    if (reply === 'ready') {
      if (gone) return;
      clearTimeout(startTimer);
      ready = true;
      settleReady(true);
      if (pending.size === 0) worker.unref();
      return;
    }
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id);
    // Idle, the thread keeps nothing alive: the process ends when the controller has closed, as without it.
    if (pending.size === 0) worker.unref();
    if ('error' in reply) waiting.reject(storeError(reply.error));
    else waiting.resolve(reply.outcomes);
  });
  // A thread that has not opened its connection in time is given up: the store opens, and writes stay here.
  const startTimer = setTimeout(() => {
    if (ready) return;
    end(Object.assign(new Error('the SQLite writer thread did not start in time'), { code: 'SQLITE_WRITER_GONE' }));
    void worker.terminate();
  }, options.startTimeoutMs ?? WRITER_START_TIMEOUT_MS);
  startTimer.unref();
  worker.on('error', (error) => end(Object.assign(new Error(`the SQLite writer thread failed: ${error.message}`), { code: 'SQLITE_WRITER_GONE' })));
  worker.on('exit', () => end(Object.assign(new Error('the SQLite writer thread has stopped'), { code: 'SQLITE_WRITER_GONE' })));
  return {
    ready: readiness,
    write(steps) {
      if (!ready || gone) return undefined;
      const id = nextId++;
      return new Promise<StepOutcome[]>((resolve, reject) => {
        // A write waited for keeps the process alive until it is answered.
        if (pending.size === 0) worker.ref();
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, steps } satisfies WriterRequest);
      });
    },
    async stop() {
      gone = true;
      settleReady(false);
      await worker.terminate();
    },
  };
}

/**
 * The controller's statements, each taking the write lock before it writes (or opens a transaction) and giving it
 * back once the connection is out of any transaction: the event loop's turn at writing. `timeoutMs` bounds the wait
 * for the writer thread's write in hand, as busy_timeout bounds a wait for another process.
 */
export function lockingWrites(database: SqliteDatabase, driver: SqliteDriver.Database, lock: WriteLock, timeoutMs: number): SqliteDatabase & { prepare(sql: string): SqliteStatement } {
  const wrapped = new WeakMap<SqliteStatement, SqliteStatement>();
  const turn = <T>(writes: boolean, run: () => T): T => inEventLoopTurn(lock, driver, timeoutMs, run, writes);
  return {
    close: () => database.close(),
    prepare(sql) {
      const statement = database.prepare(sql);
      let guarded = wrapped.get(statement);
      if (guarded === undefined) {
        // A deferred `begin` is read-only to SQLite too, but the transaction it opens is the event loop's turn.
        const writes = !(statement as unknown as SqliteDriver.Statement).readonly || /^\s*begin\b/i.test(sql);
        guarded = {
          reader: statement.reader,
          all: (parameters) => turn(writes, () => statement.all(parameters)),
          run: (parameters) => turn(writes, () => statement.run(parameters)),
          // A writing statement's rows are read at once, within its turn; a reader's as they are asked for.
          iterate: (parameters) => (writes ? turn(true, () => [...statement.iterate(parameters)])[Symbol.iterator]() : statement.iterate(parameters)),
        };
        wrapped.set(statement, guarded);
      }
      return guarded;
    },
  };
}

/**
 * Runs `work` on `driver` (the event loop's connection) in the event loop's turn at writing: the lock taken first when
 * `work` writes (or throws SQLITE_BUSY, as the driver would after its busy timeout), and given back once the
 * connection is out of any transaction. COMMIT and ROLLBACK are read-only statements to SQLite: the turn ends with
 * whatever statement ends the transaction.
 */
export function inEventLoopTurn<T>(lock: WriteLock, driver: SqliteDriver.Database, timeoutMs: number, work: () => T, writes = true): T {
  if (writes && !holdsWriteLock(lock, EVENT_LOOP_WRITES) && !takeWriteLock(lock, EVENT_LOOP_WRITES, timeoutMs)) {
    throw storeError({ message: 'database is locked', code: 'SQLITE_BUSY' });
  }
  try {
    return work();
  } finally {
    if (!driver.inTransaction) giveBackWriteLock(lock, EVENT_LOOP_WRITES);
  }
}
