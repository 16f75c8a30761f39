/**
 * The `expiration-seconds` and `expires-at` headers of every authenticated answer (spec: Response headers): the ISO
 * text is made from a kept text of its second, and must read exactly as `toISOString()` whatever the time.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sessionExpiryHeaders } from '../../src/http/kit/access.js';
import { isoTimestampsNear } from '../../src/shared/clock.js';
import type { AuthContext } from '../../src/services/authentication/request-auth.js';

const headersAt = (expiresAt: Date, now: Date) => sessionExpiryHeaders({ expiresAt } as AuthContext, now);

describe('session expiry headers', () => {
  it('give expires-at as toISOString() does, across seconds, years and the edges of the date range', () => {
    const now = Date.now();
    const times = [-8.64e15, -62198755200000, -1, 0, 1, 999, 1000, 1001, 253402300799999, 253402300800000, 8.64e15];
    // Consecutive and interleaved milliseconds, so the kept text of a second is both reused and replaced.
    for (let i = 0; i < 20_000; i++) times.push(now - 100_000 + Math.floor(i * 7.3), now + (i % 2 === 0 ? i : -i) * 997);
    for (const ms of times) assert.equal(headersAt(new Date(ms), new Date(now))['expires-at'], new Date(ms).toISOString(), `at ${ms}`);
  });

  it('isoTimestampsNear reads as toISOString() for times near each other and for times far apart', () => {
    const format = isoTimestampsNear();
    const now = Date.now();
    for (let i = 0; i < 5_000; i++) {
      for (const ms of [now + i, now + i * 1_000 + 999, now - i * 86_400_000]) assert.equal(format(new Date(ms)), new Date(ms).toISOString());
    }
  });

  it('give whole seconds until the expiry, never negative', () => {
    const now = new Date();
    assert.equal(headersAt(new Date(now.getTime() + 1_800_000), now)['expiration-seconds'], '1800');
    assert.equal(headersAt(new Date(now.getTime() + 1_499), now)['expiration-seconds'], '1');
    assert.equal(headersAt(new Date(now.getTime() - 5_000), now)['expiration-seconds'], '0');
  });
});
