/**
 * limitInFlight (src/shared/in-turn.ts): no more tasks run at once than the limit, the rest start in arrival order as
 * places free up, and a task that fails frees its place too.
 * @store-independent: no store is involved.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { limitInFlight } from '../../src/shared/in-turn.js';

describe('limitInFlight', () => {
  it('runs at most the limit at once, the others in arrival order, and a failure frees its place', async () => {
    const inTurn = limitInFlight(3);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const task = (n: number) => async () => {
      started.push(n);
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      if (n % 4 === 0) throw new Error(`task ${n} failed`);
      return n;
    };
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, n) => inTurn(task(n))));
    assert.equal(most, 3, 'three at once, never more');
    assert.deepEqual(started, Array.from({ length: 20 }, (_, n) => n), 'started in arrival order');
    assert.deepEqual(results.map((r) => r.status), Array.from({ length: 20 }, (_, n) => (n % 4 === 0 ? 'rejected' : 'fulfilled')));
    assert.equal(await inTurn(async () => 'after'), 'after', 'every place is free again');
  });
});
