/**
 * Bounds concurrent expensive work that unauthenticated callers can start (issue 11, point 10): password hashing,
 * certificate and JWT checks at login. At most `concurrency` run at once and at most `maxQueued` wait; a call
 * beyond that is refused at once with 429 RATE_LIMITED and `Retry-After`, so a flood of logins cannot queue
 * without bound or starve every other request of the event loop and the hashing threads. A queued call that has
 * waited longer than `maxWaitMs` is refused the same way when its turn comes, rather than doing work whose caller
 * has likely given up.
 */
import { ApiError } from '../../errors/api-error.js';

export interface WorkLimiterOptions {
  /** Calls running at once (argon2id runs on libuv's 4 worker threads by default). */
  concurrency: number;
  /** Calls waiting for a turn before new ones are refused. */
  maxQueued: number;
  /** Longest a queued call may wait before it is refused instead of run. */
  maxWaitMs: number;
  /** The Retry-After a refused caller is given. */
  retryAfterSeconds: number;
  /** Time source for the wait bound (milliseconds). */
  nowMs?: () => number;
}

export interface WorkLimiter {
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Running and waiting calls, for metrics and tests. */
  load(): { running: number; queued: number };
}

export const DEFAULT_AUTHENTICATION_LIMITS: WorkLimiterOptions = { concurrency: 8, maxQueued: 256, maxWaitMs: 10_000, retryAfterSeconds: 2 };

export function createWorkLimiter(options: WorkLimiterOptions): WorkLimiter {
  const nowMs = options.nowMs ?? Date.now;
  const waiting: Array<{ start: () => void; refuse: () => void; queuedAt: number }> = [];
  let running = 0;
  const busy = () =>
    new ApiError('RATE_LIMITED', { message: 'Too many authentication requests are in progress; try again shortly', retryAfterSeconds: options.retryAfterSeconds });

  function next() {
    while (running < options.concurrency && waiting.length > 0) {
      const turn = waiting.shift() as (typeof waiting)[number];
      if (nowMs() - turn.queuedAt > options.maxWaitMs) {
        turn.refuse();
      } else {
        // The slot is taken here, before the waiter resumes, so no other turn can start in between.
        running += 1;
        turn.start();
      }
    }
  }

  return {
    async run(work) {
      if (running < options.concurrency) {
        running += 1;
      } else {
        if (waiting.length >= options.maxQueued) throw busy();
        await new Promise<void>((start, refuse) => waiting.push({ start, refuse: () => refuse(busy()), queuedAt: nowMs() }));
      }
      try {
        return await work();
      } finally {
        running -= 1;
        next();
      }
    },
    load: () => ({ running, queued: waiting.length }),
  };
}
