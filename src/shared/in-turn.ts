/**
 * A limit on how many asynchronous tasks run at once; the others wait their turn in arrival order. Used where a peer
 * answers only so many requests in flight (the controller's per-router cap) and a burst must queue, not be refused.
 */

/**
 * @example
 * const inTurn = limitInFlight(32);
 * const answer = await inTurn(() => control.request(...));
 */
export function limitInFlight(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
