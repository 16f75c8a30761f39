/**
 * Secret tokens and random bytes (src/shared/random.ts): each one different and well formed, each its own memory (a
 * caller may hand its ArrayBuffer on, as the TOTP seeds do), and uniformly distributed.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newPassword, newRandomBytes, newSecretToken } from '../../src/shared/random.js';

describe('secret tokens and random bytes', () => {
  it('never repeat, and have the length and alphabet asked for', () => {
    const tokens = Array.from({ length: 10_000 }, () => newSecretToken());
    for (const token of tokens) assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(new Set(tokens).size, tokens.length);
    assert.match(newSecretToken(16), /^[A-Za-z0-9_-]{22}$/);
    assert.match(newPassword(), /^[A-Za-z0-9_-]{24}$/);
  });

  it('are their own memory: the bytes a caller holds are not a window on a shared buffer, and later draws leave them as they are', () => {
    const first = newRandomBytes(20);
    const copy = Buffer.from(first);
    assert.equal(first.buffer.byteLength, 20);
    assert.equal(first.byteOffset, 0);
    for (let i = 0; i < 500; i++) newRandomBytes(24);
    assert.deepEqual(first, copy);
  });

  it('come in any size, and every byte value about equally often', () => {
    const large = newRandomBytes(8192);
    assert.equal(large.length, 8192);
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 200; i++) for (const byte of newRandomBytes(200)) counts[byte] = (counts[byte] as number) + 1;
    const expected = (200 * 200) / 256;
    // Chi-square with 255 degrees of freedom: above 360 happens by chance about once in a hundred thousand runs; bytes
    // handed out twice, or zeroed ones handed out, would put thousands of draws on a few values.
    const chiSquare = counts.reduce((sum, n) => sum + (n - expected) ** 2 / expected, 0);
    assert.ok(chiSquare < 360, `chi-square ${chiSquare.toFixed(1)} over 255 degrees of freedom`);
  });
});
