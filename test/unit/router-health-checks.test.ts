/**
 * The router's health checks (reference D4): controllerPing starts failing and passes once a controller answers,
 * fails on a ping timeout or error, link.health compares the link count with minLinks; the report in the reference
 * shape, full and short. Time is a manual clock started from now; the ping is a function the test controls.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createHealthChecks, goDuration } from '../../src/router/health/health-checks.js';
import type { CheckId } from '../../src/router/health/health-checks.js';
import type { HealthCheckSettings } from '../../src/router-config/timings.js';
import { manualClock } from '../../src/shared/clock.js';
import { manualTimers } from '../helpers/manual-timers.js';

/** The defaults of the spec: ping every 30s after 15s with a 15s timeout; links every 5s after 1s. */
const DEFAULTS: HealthCheckSettings = {
  ctrlPingCheck: { intervalMs: 30_000, timeoutMs: 15_000, initialDelayMs: 15_000 },
  linkCheck: { intervalMs: 5_000, initialDelayMs: 1_000, minLinks: 0 },
};
const GO_DURATION = /^\d+(\.\d+)?(ns|µs|ms|s)$/;

/** Health checks on a manual clock; `ping` decides each answer, changes are collected. */
function setup(options: { settings?: HealthCheckSettings; ping?: () => Promise<void>; links?: () => number } = {}) {
  const clock = manualClock(new Date());
  const start = clock.now().getTime();
  const timers = manualTimers(clock);
  const changes: [CheckId, boolean, string | undefined][] = [];
  let pings = 0;
  const health = createHealthChecks({
    clock,
    timers,
    settings: options.settings ?? DEFAULTS,
    controllerPing: () => {
      pings++;
      return (options.ping ?? (() => Promise.resolve()))();
    },
    linkCount: options.links ?? (() => 0),
    onChange: (check, healthy, reason) => changes.push([check, healthy, reason]),
  });
  const at = (ms: number) => new Date(start + ms).toISOString();
  return { health, timers, changes, at, pings: () => pings };
}

describe('router health checks', () => {
  it('starts unhealthy: controllerPing fails until a controller has answered, link.health passes with minLinks 0', () => {
    const { health, at } = setup();
    health.start();

    assert.deepEqual(health.report(), {
      data: {
        checks: [
          { id: 'controllerPing', healthy: false, err: 'not checked yet: the first ping runs 15s after start', consecutiveFailures: 0, failingSince: at(0) },
          { id: 'link.health', healthy: true },
        ],
        healthy: false,
      },
      meta: {},
    });
    health.stop();
  });

  it('turns healthy when the first ping after initialDelay is answered, reporting when and how long it took', async () => {
    const { health, timers, changes, at } = setup();
    health.start();

    await timers.advance(14_999);
    assert.equal(health.healthy(), false, 'nothing runs before the initial delay');
    await timers.advance(1);

    const report = health.report();
    assert.equal(report.data.healthy, true);
    const [ping, link] = report.data.checks as { id: string; healthy: boolean; lastCheckDuration: string; lastCheckTime: string }[];
    assert.deepEqual(Object.keys(ping!), ['id', 'healthy', 'lastCheckDuration', 'lastCheckTime']);
    assert.equal(ping!.lastCheckTime, at(15_000));
    assert.match(ping!.lastCheckDuration, GO_DURATION);
    assert.equal(link!.lastCheckTime, at(11_000), 'link.health ran at 1s, then every 5s');
    assert.deepEqual(changes, [['controllerPing', true, undefined]]);
    health.stop();
  });

  it('fails controllerPing when no control channel answers within the timeout, counting failures from the first', async () => {
    let answer = false;
    const { health, timers, changes, at } = setup({ ping: () => (answer ? Promise.resolve() : new Promise(() => {})) });
    health.start();

    await timers.advance(15_000 + 15_000);
    const first = health.report().data.checks[0];
    assert.deepEqual({ ...first, lastCheckDuration: undefined }, {
      id: 'controllerPing',
      healthy: false,
      lastCheckDuration: undefined,
      lastCheckTime: at(15_000),
      err: 'no control channel answered within 15s',
      consecutiveFailures: 1,
      failingSince: at(0),
    });

    await timers.advance(30_000 + 15_000);
    const second = health.report().data.checks[0] as { consecutiveFailures: number; failingSince: string; lastCheckTime: string };
    assert.equal(second.consecutiveFailures, 2);
    assert.equal(second.failingSince, at(0), 'failing since the router started: it never passed');
    assert.equal(second.lastCheckTime, at(60_000));

    answer = true;
    await timers.advance(30_000);
    assert.equal(health.healthy(), true);
    assert.deepEqual(changes, [
      ['controllerPing', false, 'no control channel answered within 15s'],
      ['controllerPing', true, undefined],
    ]);
    health.stop();
  });

  it('reports the reason a ping was refused, failing since the first failure after a success', async () => {
    let fail = false;
    const { health, timers, changes, at } = setup({ ping: () => (fail ? Promise.reject(new Error('no control channels established yet')) : Promise.resolve()) });
    health.start();
    await timers.advance(15_000);
    fail = true;

    await timers.advance(30_000);

    assert.deepEqual(health.report().data.checks[0], {
      id: 'controllerPing',
      healthy: false,
      lastCheckDuration: (health.report().data.checks[0] as { lastCheckDuration: string }).lastCheckDuration,
      lastCheckTime: at(45_000),
      err: 'no control channels established yet',
      consecutiveFailures: 1,
      failingSince: at(45_000),
    });
    assert.deepEqual(changes.at(-1), ['controllerPing', false, 'no control channels established yet']);
    health.stop();
  });

  it('fails link.health while there are fewer links than minLinks, and passes once there are enough', async () => {
    let links = 1;
    const settings = { ...DEFAULTS, linkCheck: { ...DEFAULTS.linkCheck, minLinks: 2 } };
    const { health, timers, changes } = setup({ settings, links: () => links });
    health.start();
    assert.equal(health.report().data.checks[1]?.healthy, false, 'a link minimum starts unmet');

    await timers.advance(1_000);
    assert.equal((health.report().data.checks[1] as { err: string }).err, '1 link, fewer than minLinks 2');

    links = 2;
    await timers.advance(5_000);
    assert.equal(health.report().data.checks[1]?.healthy, true);
    assert.deepEqual(changes, [
      ['link.health', false, '1 link, fewer than minLinks 2'],
      ['link.health', true, undefined],
    ]);
    health.stop();
  });

  it('gives only id and health per check in the short form', async () => {
    const { health, timers } = setup();
    health.start();
    await timers.advance(15_000);

    assert.deepEqual(health.report({ short: true }), {
      data: { checks: [{ id: 'controllerPing', healthy: true }, { id: 'link.health', healthy: true }], healthy: true },
      meta: {},
    });
    health.stop();
  });

  it('runs nothing more once stopped', async () => {
    const { health, timers, pings } = setup();
    health.start();
    await timers.advance(15_000);
    health.stop();

    await timers.advance(120_000);

    assert.equal(pings(), 1);
    assert.equal(timers.pending(), 0);
  });

  it('renders durations as Go does', () => {
    assert.equal(goDuration(0.0004), '400ns');
    assert.equal(goDuration(0.1524), '152.4µs');
    assert.equal(goDuration(1.2), '1.2ms');
    assert.equal(goDuration(2500), '2.5s');
  });
});
