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

/**
 * A formatter of `isoTimestamp(at)` that keeps the text of the last second it formatted and adds the milliseconds:
 * for a stream of times close together (the current time, or the current time plus a session timeout), where all
 * but the milliseconds repeat from one request to the next. Each stream keeps its own formatter.
 */
export function isoTimestampsNear(): (at: Date) => string {
  let second = Number.NaN;
  let prefix = '';
  return (at) => {
    const ms = at.getTime();
    const atSecond = Math.floor(ms / 1000);
    if (atSecond !== second) {
      const whole = at.toISOString();
      second = atSecond;
      // `.mmmZ` ends every ISO text, whatever the year's form.
      prefix = whole.slice(0, -4);
      return whole;
    }
    const millis = ms - atSecond * 1000;
    return `${prefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
  };
}

/** Whole seconds from `now` until `at` (never negative), as the `expiration-seconds` header states them. */
export function secondsUntil(at: Date, now: Date): number {
  return Math.max(0, Math.round((at.getTime() - now.getTime()) / 1000));
}
