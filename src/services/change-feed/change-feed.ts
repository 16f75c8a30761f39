/**
 * The change feed (decision 0035): how every in-memory copy of store rows on this controller (the authentication
 * cache, the service reach index) learns that a row changed, on this controller or on another sharing the store.
 *
 * - Changes this controller commits are told at commit (the store's change signal): the next request here sees them.
 * - Changes other controllers commit are read from the change log: at once when PostgreSQL announces them
 *   (LISTEN/NOTIFY, change-notifications.ts), and in any case every `pollMs`, so a lost notification connection
 *   delays nothing past the bound.
 * - `fresh()` says whether the log was read within `boundMs`. Copies are served only while it is: when the store
 *   cannot be read (it is down, the reads fail), callers go to the store and fail there rather than serve what may
 *   be stale for longer than the bound.
 * - A reader further behind than the log keeps (its rows were pruned), or a bulk load ('*'), is told `reset`: drop
 *   everything. A burst of changes is read a batch at a time.
 */
import type { ChangeSignal, CommittedChange } from '../../persistence/change-signal.js';
import type { AuthorizationChangeLog } from '../../persistence/repositories/authorization-changes.js';

/**
 * What the feed tells: changes (`through`: for changes read from the log, the number of the last one; every change up
 * to it has now been told), or `reset`: the feed missed changes, drop everything.
 */
export type FeedEvent = { kind: 'changes'; changes: readonly CommittedChange[]; through?: number } | { kind: 'reset' };

export interface ChangeFeed {
  /** Counts what this controller has learnt of (its own changes at commit, others' when read); moves on every one. */
  readonly generation: number;
  /** True while the log was read within the bound: copies the feed keeps current may be served. */
  fresh(): boolean;
  /** Calls `listener` for every change learnt of from now on; returns the way to stop. */
  subscribe(listener: (event: FeedEvent) => void): () => void;
  /** Reads the log now (one read at a time; a call during a read is served by the next one). */
  poll(): Promise<void>;
  close(): Promise<void>;
}

/** Rows read at once. */
const BATCH = 1_000;

export interface ChangeFeedOptions {
  log: AuthorizationChangeLog;
  signal: ChangeSignal;
  /** How often the log is read when nothing announced a change (default 250 ms). */
  pollMs?: number;
  /** How old the last read may be for copies to be served (default 1 s: issue 17's bound). */
  boundMs?: number;
  /** The cross-controller announcements (PostgreSQL); absent: polling only. Given the feed's `poll`. */
  listen?(onNotice: () => void): { close(): Promise<void> };
  /** A failed read of the log (the feed goes on polling). */
  onError(error: unknown): void;
  /** How long after its commit a change made elsewhere was learnt of, in seconds. */
  onLag?(seconds: number): void;
}

/** Starts the feed at the newest change in the log. @example const feed = await startChangeFeed({ log, signal: database.changes, onError }); */
export async function startChangeFeed(options: ChangeFeedOptions): Promise<ChangeFeed> {
  const { log, signal } = options;
  const pollMs = options.pollMs ?? 250;
  const boundMs = options.boundMs ?? 1_000;
  const listeners = new Set<(event: FeedEvent) => void>();
  let generation = 0;
  let seq = (await log.latest()).seq;
  // performance.now(), not the controller's clock: freshness is about real time passing (tests move their clocks).
  let readAt = performance.now();
  let reading: Promise<void> | undefined;

  const tell = (event: FeedEvent) => {
    generation++;
    for (const listener of listeners) listener(event);
  };
  const stopLocal = signal.subscribe((change) => tell({ kind: 'changes', changes: [change] }));

  /** Reads the log up to its end, a batch at a time; a burst of changes is followed, not treated as a gap. */
  async function read(): Promise<void> {
    const started = performance.now();
    for (;;) {
      const rows = await log.since(seq, BATCH);
      const first = rows[0];
      if (!first) break;
      if (rows.some((row) => row.entityType === '*') || (await log.missedAfter(seq, first))) {
        seq = (await log.latest()).seq;
        tell({ kind: 'reset' });
        break;
      }
      seq = (rows[rows.length - 1] as { seq: number }).seq;
      // This controller's own changes come back here too: told again, which costs a second eviction and no more.
      tell({ kind: 'changes', changes: rows.map(({ entityType, entityId }) => ({ entityType, entityId })), through: seq });
      options.onLag?.(Math.max(0, (Date.now() - Math.max(...rows.map((row) => row.changedAt))) / 1000));
      if (rows.length < BATCH) break;
    }
    readAt = started;
  }

  let queued: Promise<void> | undefined;
  /** One read at a time; a call during a read gets the read that starts after it (it may follow a newer commit). */
  function poll(): Promise<void> {
    if (!reading) {
      reading = read()
        .catch((error: unknown) => options.onError(error))
        .finally(() => {
          reading = undefined;
        });
      return reading;
    }
    queued ??= reading.then(() => {
      queued = undefined;
      return poll();
    });
    return queued;
  }

  const timer = setInterval(() => void poll(), pollMs);
  timer.unref();
  const notices = options.listen?.(() => void poll());

  return {
    get generation() {
      return generation;
    },
    fresh: () => performance.now() - readAt <= boundMs,
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    poll,
    async close() {
      clearInterval(timer);
      stopLocal();
      await notices?.close();
      await reading;
    },
  };
}
