/**
 * Entity ids (src/shared/random.ts): 16 base-62 characters, every character equally likely, never repeating, also
 * across the refills of the random bytes they are drawn from.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newEntityId } from '../../src/shared/random.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('entity ids', () => {
  it('are 16 base-62 characters and do not repeat over many refills of their random bytes', () => {
    // 20,000 ids use about 330,000 random bytes: some eighty refills of the 4 KiB the ids are drawn from.
    const ids = Array.from({ length: 20_000 }, () => newEntityId());
    for (const id of ids) assert.match(id, /^[0-9A-Za-z]{16}$/);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('use every character about equally often (no bias from the byte to character mapping)', () => {
    const counts = new Map<string, number>([...ALPHABET].map((c) => [c, 0]));
    const samples = 10_000;
    for (let i = 0; i < samples; i++) for (const c of newEntityId()) counts.set(c, (counts.get(c) as number) + 1);
    const expected = (samples * 16) / 62;
    // Chi-square with 61 degrees of freedom: above 120 happens by chance about once in a hundred thousand runs, while
    // taking bytes modulo 62 without rejecting 248-255 would push the first eight characters 25% high (far above).
    const chiSquare = [...counts.values()].reduce((sum, n) => sum + (n - expected) ** 2 / expected, 0);
    assert.ok(chiSquare < 120, `chi-square ${chiSquare.toFixed(1)} over 61 degrees of freedom`);
  });
});
