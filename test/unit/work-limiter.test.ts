/**
 * The work limiter that bounds concurrent login work: how many run, how many wait, what is refused, and that a
 * turn that waited too long is refused rather than run.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isApiError } from '../../src/errors/api-error.js';
import { createWorkLimiter } from '../../src/services/authentication/work-limiter.js';

/** A piece of work that finishes when told to, recording that it started. */
function gate(started: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { work: async () => (started.push(name), await done, name), finish };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('the work limiter', () => {
  it('runs at most `concurrency` at once, queues up to `maxQueued`, and refuses the rest with 429 and Retry-After', async () => {
    const limiter = createWorkLimiter({ concurrency: 2, maxQueued: 1, maxWaitMs: 60_000, retryAfterSeconds: 4 });
    const started: string[] = [];
    const gates = ['a', 'b', 'c'].map((name) => gate(started, name));
    const runs = gates.map((g) => limiter.run(g.work));
    await flush();
    assert.deepEqual(started, ['a', 'b']);
    assert.deepEqual(limiter.load(), { running: 2, queued: 1 });

    await assert.rejects(limiter.run(async () => 'd'), (error) => isApiError(error) && error.code === 'RATE_LIMITED' && error.status === 429 && error.retryAfterSeconds === 4);

    gates[0]!.finish();
    await flush();
    assert.deepEqual(started, ['a', 'b', 'c']);
    assert.deepEqual(limiter.load(), { running: 2, queued: 0 });
    gates[1]!.finish();
    gates[2]!.finish();
    assert.deepEqual(await Promise.all(runs), ['a', 'b', 'c']);
    assert.deepEqual(limiter.load(), { running: 0, queued: 0 });
  });

  it('frees the slot of work that fails', async () => {
    const limiter = createWorkLimiter({ concurrency: 1, maxQueued: 0, maxWaitMs: 60_000, retryAfterSeconds: 1 });
    await assert.rejects(limiter.run(async () => Promise.reject(new Error('boom'))), /boom/);
    assert.equal(await limiter.run(async () => 'next'), 'next');
  });

  it('refuses a queued call whose wait passed maxWaitMs instead of running it', async () => {
    let now = 0;
    const limiter = createWorkLimiter({ concurrency: 1, maxQueued: 5, maxWaitMs: 1_000, retryAfterSeconds: 2, nowMs: () => now });
    const started: string[] = [];
    const first = gate(started, 'first');
    const running = limiter.run(first.work);
    const late = limiter.run(async () => 'late');
    now = 1_001;
    first.finish();
    assert.equal(await running, 'first');
    await assert.rejects(late, (error) => isApiError(error) && error.code === 'RATE_LIMITED');
    assert.equal(await limiter.run(async () => 'after'), 'after');
  });
});
