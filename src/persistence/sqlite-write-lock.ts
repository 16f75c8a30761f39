/**
 * One writer at a time between the controller's SQLite connection, on the event loop, and the writer thread's
 * (sqlite-writer.ts): a word in shared memory that either thread takes before it writes and gives back once its
 * transaction has ended. SQLite would keep them apart by itself, but a connection that finds the database locked
 * sleeps in its busy handler, a millisecond at least, and on the event loop that stalls every request. Here the event
 * loop waits only as long as the writer's transaction in hand lasts, and is woken the moment it ends.
 *
 * Whoever holds the word may hold it across statements: the event loop takes it at `begin` and keeps it until its
 * transaction ends, so the writer never commits between a transaction's read and its write (which would make that
 * write fail with SQLITE_BUSY_SNAPSHOT).
 */

/** Who holds the lock: nobody, the event loop's connection, or the writer thread's. */
export const WRITE_LOCK_FREE = 0;
export const EVENT_LOOP_WRITES = 1;
export const WRITER_THREAD_WRITES = 2;
export type WriteLockHolder = typeof EVENT_LOOP_WRITES | typeof WRITER_THREAD_WRITES;

/** The lock: one 32-bit word in memory both threads share (pass `words` to the worker as is). */
export interface WriteLock {
  readonly words: Int32Array;
}

export function newWriteLock(): WriteLock {
  return { words: new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)) };
}

/**
 * Takes the lock for `holder`, waiting at most `timeoutMs` for the other one to give it back; true when `holder`
 * holds it now (taken here, or held already), false when the wait ran out.
 */
export function takeWriteLock(lock: WriteLock, holder: WriteLockHolder, timeoutMs: number): boolean {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const seen = Atomics.compareExchange(lock.words, 0, WRITE_LOCK_FREE, holder);
    if (seen === WRITE_LOCK_FREE || seen === holder) return true;
    const left = deadline - performance.now();
    if (left <= 0) return false;
    // Sleeps until the holder gives it back (notify) or the time is up; returns at once if it changed meanwhile.
    Atomics.wait(lock.words, 0, seen, left);
  }
}

/** Gives the lock back if `holder` holds it, waking whoever waits for it. */
export function giveBackWriteLock(lock: WriteLock, holder: WriteLockHolder): void {
  if (Atomics.compareExchange(lock.words, 0, holder, WRITE_LOCK_FREE) === holder) Atomics.notify(lock.words, 0);
}

/** Whether `holder` holds the lock now. */
export function holdsWriteLock(lock: WriteLock, holder: WriteLockHolder): boolean {
  return Atomics.load(lock.words, 0) === holder;
}
