/**
 * Legacy session activity without a database write per request: each request records "seen at" in memory, and a
 * timer writes the latest time of every active session in one batch. Expiry checks use the later of the stored
 * and the remembered time, so a session in active use never expires between flushes. Several controllers
 * sharing a store see each other's activity once it is flushed; the flush interval is kept far below the
 * session timeout so that lag cannot end a live session.
 */
import type { ApiSessionRepository } from '../../persistence/repositories/api-sessions.js';

export interface SessionActivity {
  /** Remembers that the session was used at `at`. */
  seen(sessionId: string, at: Date): void;
  /** The latest remembered use not yet written, if any. */
  pending(sessionId: string): Date | undefined;
  /** Forgets a session (logout, expiry) so nothing is written for it. */
  forget(sessionId: string): void;
  /** Writes all remembered activity now. */
  flush(): Promise<void>;
  /** Stops the timer after a last flush. */
  close(): Promise<void>;
}

export function createSessionActivity(deps: { apiSessions: ApiSessionRepository; flushIntervalMs: number; onError(error: unknown): void }): SessionActivity {
  let pending = new Map<string, Date>();
  // The write under way, if any: close() must wait for it, or the store could close beneath its transaction.
  let writing: Promise<void> = Promise.resolve();
  // The batch being written stays visible to pending() until it is in the store.
  let inFlight = new Map<string, Date>();
  const write = async () => {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    inFlight = batch;
    try {
      await deps.apiSessions.touchMany([...batch].map(([id, at]) => ({ id, at })));
      inFlight = new Map();
    } catch (error) {
      inFlight = new Map();
      // Keep what could not be written for the next round, unless newer activity replaced it meanwhile.
      for (const [id, at] of batch) if (!pending.has(id)) pending.set(id, at);
      deps.onError(error);
    }
  };
  const flush = () => (writing = writing.then(write));
  const timer = setInterval(() => void flush(), deps.flushIntervalMs);
  timer.unref();
  return {
    seen(sessionId, at) {
      const known = pending.get(sessionId);
      if (!known || known < at) pending.set(sessionId, at);
    },
    pending: (sessionId) => pending.get(sessionId) ?? inFlight.get(sessionId),
    forget: (sessionId) => void pending.delete(sessionId),
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
