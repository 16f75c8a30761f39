/**
 * A task run every interval in the background (a controller's heartbeat, its housekeeping): one run at a time (a
 * tick while the last run is still going is skipped), a failure reported and the next tick tried, and a timer that
 * does not keep the process alive. `stop` waits for a run under way.
 *
 * @example const sweep = startPeriodic(() => housekeeping.sweep(), { intervalMs: 30_000, onError: (err) => log.warn({ err }, 'sweep failed') });
 */
export interface Periodic {
  /** Stops the ticks; a run under way finishes (its failure is reported as any other). */
  stop(): Promise<void>;
  /** Runs the task now, unless a run is under way (then waits for that one); for tests and shutdown. */
  runNow(): Promise<void>;
}

export function startPeriodic(task: () => Promise<unknown>, options: { intervalMs: number; onError(error: unknown): void }): Periodic {
  let running: Promise<void> | undefined;
  const tick = (): Promise<void> => {
    running ??= task()
      .then(() => undefined, options.onError)
      .finally(() => (running = undefined));
    return running;
  };
  const timer = setInterval(() => void tick(), options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
    runNow: tick,
  };
}
