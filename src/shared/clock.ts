/**
 * Time as a dependency. Every module that needs "now" receives a Clock so tests can move time
 * (session expiry, token lifetimes) without sleeping.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to; for tests and deterministic tools. */
export function manualClock(start: Date = new Date()): Clock & { advance(ms: number): void; set(at: Date): void } {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance(ms: number) {
      current += ms;
    },
    set(at: Date) {
      current = at.getTime();
    },
  };
}

/** ISO 8601 with milliseconds and `Z`: the one timestamp format stored and sent (sorts as text). */
export function isoTimestamp(at: Date): string {
  return at.toISOString();
}

/** Whole seconds from `now` until `at` (never negative), as the `expiration-seconds` header states them. */
export function secondsUntil(at: Date, now: Date): number {
  return Math.max(0, Math.round((at.getTime() - now.getTime()) / 1000));
}
