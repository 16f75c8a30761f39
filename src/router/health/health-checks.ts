/**
 * The router's health checks, as the reference router runs and reports them (reference D4): `controllerPing`
 * asks a control channel to answer within the ping timeout, `link.health` compares the link count with minLinks.
 * Each runs after its initial delay, then every interval after the previous run ended (never two at once), and
 * keeps its latest result; `report` renders them in the reference JSON shape that `GET /health-checks` serves.
 * Knows nothing of HTTP or sockets: the ping and the link count are functions handed in.
 */
import type { Clock } from '../../shared/clock.js';
import { formatDuration } from '../../shared/durations.js';
import type { HealthCheckSettings } from '../../router-config/timings.js';
import { systemTimers } from './timers.js';
import type { Timers } from './timers.js';

export const CONTROLLER_PING = 'controllerPing';
export const LINK_HEALTH = 'link.health';
export type CheckId = typeof CONTROLLER_PING | typeof LINK_HEALTH;

export interface HealthCheckOptions {
  readonly clock: Clock;
  readonly settings: HealthCheckSettings;
  /** Resolves when a control channel answered a ping; rejects (its message is the check's `err`) otherwise. */
  readonly controllerPing: () => Promise<void>;
  readonly linkCount: () => number;
  /** Told on every change of a check's health, and on a first run that fails, with the failure's reason. */
  readonly onChange?: (check: CheckId, healthy: boolean, reason: string | undefined) => void;
  readonly timers?: Timers;
  /** Elapsed milliseconds for lastCheckDuration; performance.now unless given. */
  readonly elapsed?: () => number;
}

/** One check in the reference shape; the failure fields are present only while it fails. */
export interface CheckReport {
  id: CheckId;
  healthy: boolean;
  lastCheckDuration?: string;
  lastCheckTime?: string;
  err?: string;
  consecutiveFailures?: number;
  failingSince?: string;
}

export interface HealthReport {
  data: { checks: CheckReport[] | { id: CheckId; healthy: boolean }[]; healthy: boolean };
  meta: Record<string, never>;
}

export interface HealthChecks {
  start(): void;
  stop(): void;
  /** Every check healthy. */
  healthy(): boolean;
  /** The reference body; `short` keeps only each check's id and health (`?type=short`). */
  report(options?: { short?: boolean }): HealthReport;
}

interface CheckState {
  healthy: boolean;
  err?: string;
  consecutiveFailures: number;
  failingSince?: Date;
  lastCheckTime?: Date;
  lastCheckDurationMs?: number;
}

/**
 * @example
 * const health = createHealthChecks({ clock: systemClock, settings: routerTimings(config).healthChecks,
 *   controllerPing: () => control.ping(), linkCount: () => links.size });
 * health.start();
 * JSON.stringify(health.report(), null, 4); // what GET /health-checks answers
 */
export function createHealthChecks(options: HealthCheckOptions): HealthChecks {
  const { clock, settings } = options;
  const timers = options.timers ?? systemTimers;
  const elapsed = options.elapsed ?? (() => performance.now());
  const ping = settings.ctrlPingCheck;
  const link = settings.linkCheck;
  const started = clock.now();
  // The reference starts controllerPing failing: a router is not healthy before a controller has answered it.
  const states: Record<CheckId, CheckState> = {
    [CONTROLLER_PING]: { healthy: false, err: `not checked yet: the first ping runs ${formatDuration(ping.initialDelayMs)} after start`, consecutiveFailures: 0, failingSince: started },
    [LINK_HEALTH]:
      link.minLinks === 0
        ? { healthy: true, consecutiveFailures: 0 }
        : { healthy: false, err: `not checked yet: the first check runs ${formatDuration(link.initialDelayMs)} after start`, consecutiveFailures: 0, failingSince: started },
  };
  const pending = new Map<CheckId, unknown>();
  let running = false;
  // A run still in flight when stop() (and perhaps start()) came must not record or schedule anything.
  let generation = 0;

  const runs: Record<CheckId, () => Promise<string | undefined>> = {
    [CONTROLLER_PING]: () => withTimeout(options.controllerPing(), ping.timeoutMs),
    [LINK_HEALTH]: async () => {
      const count = options.linkCount();
      return count < link.minLinks ? `${count} link${count === 1 ? '' : 's'}, fewer than minLinks ${link.minLinks}` : undefined;
    },
  };

  /** The failure's sentence, or undefined when the ping was answered in time. */
  function withTimeout(answer: Promise<void>, timeoutMs: number): Promise<string | undefined> {
    return new Promise((resolve) => {
      const timer = timers.setTimeout(() => resolve(`no control channel answered within ${formatDuration(timeoutMs)}`), timeoutMs);
      answer.then(
        () => resolve(undefined),
        (error: unknown) => resolve(error instanceof Error && error.message !== '' ? error.message : 'the controller ping failed'),
      ).finally(() => timers.clearTimeout(timer));
    });
  }

  async function runCheck(id: CheckId, runGeneration: number): Promise<void> {
    const at = clock.now();
    const begin = elapsed();
    let failure: string | undefined;
    try {
      failure = await runs[id]();
    } catch (error) {
      // linkCount throwing is a router bug; the check reports it rather than stopping for good.
      failure = error instanceof Error ? error.message : String(error);
    }
    if (!running || runGeneration !== generation) return;
    record(id, at, elapsed() - begin, failure);
    schedule(id, id === CONTROLLER_PING ? ping.intervalMs : link.intervalMs);
  }

  function record(id: CheckId, at: Date, durationMs: number, failure: string | undefined): void {
    const state = states[id];
    const was = state.healthy;
    const first = state.lastCheckTime === undefined;
    state.lastCheckTime = at;
    state.lastCheckDurationMs = durationMs;
    if (failure === undefined) {
      Object.assign(state, { healthy: true, err: undefined, consecutiveFailures: 0, failingSince: undefined });
    } else {
      state.failingSince = state.healthy ? at : (state.failingSince ?? at);
      Object.assign(state, { healthy: false, err: failure, consecutiveFailures: state.consecutiveFailures + 1 });
    }
    // A check that starts failing ("not checked yet") reports its first failed run too: only then is there a reason.
    if (state.healthy !== was || (first && !state.healthy)) {
      options.onChange?.(id, state.healthy, failure);
    }
  }

  function schedule(id: CheckId, ms: number): void {
    const runGeneration = generation;
    pending.set(id, timers.setTimeout(() => void runCheck(id, runGeneration), ms));
  }

  function checkReport(id: CheckId): CheckReport {
    const state = states[id];
    const out: CheckReport = { id, healthy: state.healthy };
    if (state.lastCheckTime !== undefined) {
      out.lastCheckDuration = goDuration(state.lastCheckDurationMs ?? 0);
      out.lastCheckTime = state.lastCheckTime.toISOString();
    }
    if (!state.healthy) {
      out.err = state.err;
      out.consecutiveFailures = state.consecutiveFailures;
      if (state.failingSince !== undefined) out.failingSince = state.failingSince.toISOString();
    }
    return out;
  }

  const ids: CheckId[] = [CONTROLLER_PING, LINK_HEALTH];
  const healthy = () => ids.every((id) => states[id].healthy);
  return {
    start() {
      if (running) return;
      running = true;
      schedule(CONTROLLER_PING, ping.initialDelayMs);
      schedule(LINK_HEALTH, link.initialDelayMs);
    },
    stop() {
      running = false;
      generation++;
      for (const handle of pending.values()) timers.clearTimeout(handle);
      pending.clear();
    },
    healthy,
    report({ short = false } = {}) {
      const checks = short ? ids.map((id) => ({ id, healthy: states[id].healthy })) : ids.map(checkReport);
      return { data: { checks, healthy: healthy() }, meta: {} };
    },
  };
}

/** Go's rendering of a time.Duration below a minute or so ("152.4µs", "1.2ms", "2.5s"), as the reference reports it. */
export function goDuration(ms: number): string {
  const trim = (value: number) => String(Number(value.toFixed(3)));
  if (ms < 0.001) return `${Math.round(ms * 1e6)}ns`;
  if (ms < 1) return `${trim(ms * 1000)}µs`;
  if (ms < 1000) return `${trim(ms)}ms`;
  return `${trim(ms / 1000)}s`;
}
