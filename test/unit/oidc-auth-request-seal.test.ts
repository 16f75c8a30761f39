/**
 * The sealed id of an authorization request (services/oidc-provider/oidc-auth-request-seal.ts): it opens to what was
 * sealed, only under the key and purpose it was sealed for, and the requests kept opened in memory answer exactly
 * what decrypting the id answers, cannot be changed by a caller, and stay bounded in number.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { createSecretBox } from '../../src/crypto/secret-box.js';
import type { OidcAuthRequest } from '../../src/domain/oidc.js';
import { authRequestKey, createAuthRequestSeal } from '../../src/services/oidc-provider/oidc-auth-request-seal.js';
import { startedRequest } from '../helpers/auth-requests.js';

const box = createSecretBox(randomBytes(32));
// The time of the requests sealed here (the seal keeps milliseconds): one instant, so a request made twice is equal.
const now = new Date();

const started = (n: number) => startedRequest(n, now);

/** What a request opened from `handle` must be: the sealed fields, under the id's own key and handle. */
const expected = (request: OidcAuthRequest, handle: string) => ({ ...request, id: authRequestKey(handle), handle });

describe('sealed auth request ids', () => {
  it('opens to what was sealed, from memory or by decrypting, the same either way', () => {
    const seal = createAuthRequestSeal(box);
    // Another controller with the same key has none of them in memory: it decrypts.
    const elsewhere = createAuthRequestSeal(box);
    for (let n = 0; n < 6; n++) {
      const handle = seal.seal(started(n));
      const fromMemory = seal.open(handle);
      const decrypted = elsewhere.open(handle);
      assert.deepEqual(fromMemory, expected(started(n), handle));
      assert.deepEqual(decrypted, fromMemory);
      assert.equal(elsewhere.open(handle), decrypted, 'opened once, kept');
    }
  });

  it('refuses an altered id, one sealed under another key and one that is not a seal, however many are kept', () => {
    const seal = createAuthRequestSeal(box);
    const handle = seal.seal(started(1));
    assert.ok(seal.open(handle));
    const altered = `${handle.slice(0, -2)}${handle.endsWith('AA') ? 'BB' : 'AA'}`;
    const otherKey = createAuthRequestSeal(createSecretBox(randomBytes(32))).seal(started(1));
    for (const id of [altered, otherKey, '', 'nonsense', box.seal('{}', 'oidc-auth-request v1'), box.seal(JSON.stringify({ r: 1 }), 'other purpose')]) {
      assert.equal(seal.open(id), undefined, id);
    }
  });

  it('hands out requests no caller can change for the next one', () => {
    const seal = createAuthRequestSeal(box);
    const handle = seal.seal(started(2));
    const request = seal.open(handle)!;
    assert.throws(() => ((request as { status: string }).status = 'authenticated'), TypeError);
    assert.throws(() => request.amr.push('pwd'), TypeError);
    assert.throws(() => request.outstanding.push({ kind: 'totp' } as never), TypeError);
    assert.throws(() => request.configTypes.push('x'), TypeError);
    assert.deepEqual(seal.open(handle), expected(started(2), handle));
  });

  it('keeps a bounded number opened, and opens the others by decrypting them again', () => {
    const seal = createAuthRequestSeal(box, 2);
    const handles = [0, 1, 2, 3].map((n) => seal.seal(started(n)));
    handles.forEach((handle, n) => assert.deepEqual(seal.open(handle), expected(started(n), handle)));
    assert.equal(seal.open(handles[0]!), seal.open(handles[0]!), 'the last two opened are kept');
  });
});
