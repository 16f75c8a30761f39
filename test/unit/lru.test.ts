/**
 * The bounded cache behind the authentication cache, the access-token cache and the external JWT cache
 * (shared/lru.ts): it never holds more than its capacity, evicts what was not read for the longest, and keeps an
 * entry that is read often however many others come and go.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLru } from '../../src/shared/lru.js';

describe('createLru', () => {
  it('holds at most its capacity, evicting the oldest insertion first', () => {
    const cache = createLru<string, number>(3);
    for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) cache.set(key, i);
    assert.equal(cache.size, 3);
    assert.equal(cache.get('a'), undefined);
    assert.deepEqual(['b', 'c', 'd'].map((key) => cache.get(key)), [1, 2, 3]);
  });

  it('moves an entry read once it is in the older half, so it outlives entries not read', () => {
    const cache = createLru<string, number>(4);
    cache.set('kept', 0);
    cache.set('x1', 1);
    cache.set('x2', 2);
    // `kept` is two insertions old, half the capacity: reading it moves it behind x1 and x2.
    assert.equal(cache.get('kept'), 0);
    cache.set('x3', 3);
    cache.set('x4', 4);
    cache.set('x5', 5);
    assert.equal(cache.get('x1'), undefined, 'the oldest unread entries go first');
    assert.equal(cache.get('x2'), undefined);
    assert.equal(cache.get('kept'), 0);
  });

  it('never evicts an entry read at least once in every half-capacity of insertions', () => {
    const capacity = 10;
    const cache = createLru<string, number>(capacity);
    cache.set('hot', -1);
    for (let i = 0; i < 1000; i++) {
      cache.set(`cold-${i}`, i);
      if (i % (capacity / 2) === 0) assert.equal(cache.get('hot'), -1, `read after ${i} insertions`);
      assert.ok(cache.size <= capacity);
    }
    assert.equal(cache.get('cold-0'), undefined);
    assert.equal(cache.get('cold-999'), 999);
  });

  it('replaces a value in place, and forgets on delete and clear', () => {
    const cache = createLru<string, number>(2);
    cache.set('a', 1);
    cache.set('a', 2);
    assert.equal(cache.size, 1);
    assert.equal(cache.get('a'), 2);
    cache.set('b', 3);
    cache.delete('a');
    assert.equal(cache.get('a'), undefined);
    assert.equal(cache.size, 1);
    cache.clear();
    assert.equal(cache.size, 0);
    assert.equal(cache.get('b'), undefined);
  });

  it('a capacity of one keeps the latest entry', () => {
    const cache = createLru<string, number>(1);
    cache.set('a', 1);
    assert.equal(cache.get('a'), 1);
    cache.set('b', 2);
    assert.equal(cache.get('a'), undefined);
    assert.equal(cache.get('b'), 2);
  });
});
