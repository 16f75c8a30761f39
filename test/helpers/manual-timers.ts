/**
 * Timers that fire only when a test moves the manual clock: `advance(ms)` walks the clock to each due timer in
 * order, runs it, and lets the promises it started settle before looking for the next one. Builders only; no asserts.
 */
import { setImmediate as turn } from 'node:timers/promises';
import type { Timers } from '../../src/router/health/timers.js';
import type { manualClock } from '../../src/shared/clock.js';

export interface ManualTimers extends Timers {
  /** Moves the clock by `ms`, firing every timer due on the way at its own time. */
  advance(ms: number): Promise<void>;
  /** Timers waiting to fire. */
  pending(): number;
}

export function manualTimers(clock: ReturnType<typeof manualClock>): ManualTimers {
  let next = 0;
  const waiting = new Map<number, { at: number; run: () => void }>();
  const settle = async () => {
    // A few turns of the event loop: a check's promise chain (ping, timeout race, record) is several hops long.
    for (let i = 0; i < 5; i++) await turn();
  };
  return {
    setTimeout(run, ms) {
      const id = next++;
      waiting.set(id, { at: clock.now().getTime() + ms, run });
      return id;
    },
    clearTimeout(handle) {
      waiting.delete(handle as number);
    },
    pending: () => waiting.size,
    async advance(ms) {
      const end = clock.now().getTime() + ms;
      await settle();
      for (;;) {
        const due = [...waiting.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
        if (due === undefined) break;
        const [id, timer] = due;
        waiting.delete(id);
        clock.set(new Date(timer.at));
        timer.run();
        await settle();
      }
      clock.set(new Date(end));
    },
  };
}
