/**
 * Timers as a dependency, as the clock is one (STYLE.md "Habits"): the health checks schedule their runs through
 * this, so a test moves time by hand and a router process uses Node's timers, unref'd so that a check never keeps
 * a stopping process alive.
 */
export interface Timers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimers: Timers = {
  setTimeout(run, ms) {
    const handle = setTimeout(run, ms);
    handle.unref();
    return handle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};
