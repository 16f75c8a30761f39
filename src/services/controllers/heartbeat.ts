/**
 * The heartbeat of a controller sharing the store (docs/decisions/0034-several-controllers.md): every
 * HEARTBEAT_INTERVAL_MS it records that it is alive, and marks offline the controllers whose heartbeat stopped. A
 * controller reads online while its latest heartbeat is younger than ONLINE_WITHIN_MS (three intervals, so one late
 * or failed write does not flap it), so one killed without a word reads offline within that bound.
 */
import type { ControllerRepository } from '../../persistence/repositories/controllers.js';
import type { Clock } from '../../shared/clock.js';
import { startPeriodic, type Periodic } from '../../shared/periodic.js';

export const HEARTBEAT_INTERVAL_MS = 5_000;
export const ONLINE_WITHIN_MS = 3 * HEARTBEAT_INTERVAL_MS;

export type Heartbeat = Pick<Periodic, 'stop'>;

/**
 * Starts the heartbeat of controller `id`. A failed beat (the store unreachable) is reported to `onError` and the
 * next one tried at the next interval; the timer does not keep the process alive.
 *
 * @example const heartbeat = startHeartbeat({ controllers, id, clock, onError: (err) => log.warn({ err }, '...') });
 */
export function startHeartbeat(deps: { controllers: ControllerRepository; id: string; clock: Clock; intervalMs?: number; onError(error: unknown): void }): Heartbeat {
  return startPeriodic(
    () => {
      const now = deps.clock.now();
      return deps.controllers.heartbeat(deps.id, now, new Date(now.getTime() - ONLINE_WITHIN_MS));
    },
    { intervalMs: deps.intervalMs ?? HEARTBEAT_INTERVAL_MS, onError: deps.onError },
  );
}
