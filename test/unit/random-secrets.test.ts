/**
 * Secret tokens and random bytes (src/shared/random.ts), drawn from a pool of CSPRNG bytes: each one different, each
 * its own memory (a caller may hand its ArrayBuffer on, as the TOTP seeds do), and the pool forgets what it hands out.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newPassword, newRandomBytes, newSecretToken } from '../../src/shared/random.js';

describe('secret tokens and random bytes', () => {
  it('never repeat, across many refills of the pool they are drawn from', () => {
    // 10,000 tokens of 32 bytes use some eighty refills of a 4 KiB pool.
    const tokens = Array.from({ length: 10_000 }, () => newSecretToken());
    for (const token of tokens) assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(new Set(tokens).size, tokens.length);
    assert.match(newSecretToken(16), /^[A-Za-z0-9_-]{22}$/);
    assert.match(newPassword(), /^[A-Za-z0-9_-]{24}$/);
  });

  it('are their own memory: the bytes a caller holds are not a window on the pool, and later draws leave them as they are', () => {
    const first = newRandomBytes(20);
    const copy = Buffer.from(first);
    assert.equal(first.buffer.byteLength, 20);
    assert.equal(first.byteOffset, 0);
    for (let i = 0; i < 500; i++) newRandomBytes(24);
    assert.deepEqual(first, copy);
  });

  it('give draws larger than the pool straight from the CSPRNG, and uniformly distributed bytes', () => {
    const large = newRandomBytes(8192);
    assert.equal(large.length, 8192);
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 200; i++) for (const byte of newRandomBytes(200)) counts[byte] = (counts[byte] as number) + 1;
    const expected = (200 * 200) / 256;
    // Chi-square with 255 degrees of freedom: above 360 happens by chance about once in a hundred thousand runs; a
    // pool handing out zeroed (used) bytes again would put thousands of draws on 0.
    const chiSquare = counts.reduce((sum, n) => sum + (n - expected) ** 2 / expected, 0);
    assert.ok(chiSquare < 360, `chi-square ${chiSquare.toFixed(1)} over 255 degrees of freedom`);
  });
});
