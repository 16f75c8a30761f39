/**
 * Sealed authorization codes (services/oidc-provider/oidc-codes.ts, decision 0046): a code opens to the login it was
 * minted for, with its expiry a minute on, at any controller with the same key; an altered code, one sealed under
 * another key or for another purpose, and one missing or mistyping a field open to nothing; codes kept in memory
 * cannot be changed by a caller.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { createSecretBox } from '../../src/crypto/secret-box.js';
import { OIDC_CLIENT_ID } from '../../src/domain/oidc.js';
import { createAuthRequestSeal } from '../../src/services/oidc-provider/oidc-auth-request-seal.js';
import { CODE_TTL_MS, createAuthorizationCodes } from '../../src/services/oidc-provider/oidc-codes.js';
import { loggedInRequest } from '../helpers/auth-requests.js';

const box = createSecretBox(randomBytes(32));
const now = new Date();

const loggedIn = (n: number) => loggedInRequest(n, now);

describe('sealed authorization codes', () => {
  it('open to the login they were minted for, from memory or by decrypting at another controller', () => {
    const codes = createAuthorizationCodes(box);
    const elsewhere = createAuthorizationCodes(box);
    for (let n = 0; n < 6; n++) {
      const request = loggedIn(n);
      const code = codes.mint(request, `session-${n}`, now);
      assert.deepEqual(
        { ...code },
        {
          value: code.value,
          sessionId: `session-${n}`,
          identityId: request.identityId,
          clientId: OIDC_CLIENT_ID,
          redirectUri: request.redirectUri,
          scope: request.scope,
          state: request.state,
          nonce: request.nonce,
          codeChallenge: request.codeChallenge,
          issuer: request.issuer,
          amr: request.amr,
          authTime: request.authTime,
          configTypes: request.configTypes,
          authenticatorId: request.authenticatorId,
          ipAddress: request.ipAddress,
          caId: request.caId ?? null,
          expiresAt: new Date(now.getTime() + CODE_TTL_MS),
        },
      );
      assert.deepEqual(codes.open(code.value), code);
      assert.deepEqual(elsewhere.open(code.value), code);
    }
  });

  it('are new for every login, even of the same request', () => {
    const codes = createAuthorizationCodes(box);
    const values = new Set([0, 1, 2].map(() => codes.mint(loggedIn(1), 'session', now).value));
    assert.equal(values.size, 3);
  });

  it('refuse an altered code, another key, another purpose and a seal missing or mistyping a field', () => {
    const codes = createAuthorizationCodes(box);
    const code = codes.mint(loggedIn(1), 'session', now).value;
    const altered = `${code.slice(0, -2)}${code.endsWith('AA') ? 'BB' : 'AA'}`;
    const otherKey = createAuthorizationCodes(createSecretBox(randomBytes(32))).mint(loggedIn(1), 'session', now).value;
    const authRequestId = createAuthRequestSeal(box).seal({ ...loggedIn(1), status: 'started', identityId: null });
    const fields = JSON.parse(box.open(code, 'oidc-code v1')) as Record<string, unknown>;
    const without = (name: string) => box.seal(JSON.stringify({ ...fields, [name]: undefined }), 'oidc-code v1');
    const mistyped = (name: string, value: unknown) => box.seal(JSON.stringify({ ...fields, [name]: value }), 'oidc-code v1');
    const refused = [altered, otherKey, authRequestId, '', 'nonsense', box.seal(code, 'other purpose'), box.seal('null', 'oidc-code v1'), box.seal('[]', 'oidc-code v1')];
    refused.push(without('a'), without('u'), without('cc'), without('e'), mistyped('m', 'pwd'), mistyped('ct', [1]), mistyped('t', '0'), mistyped('st', 5));
    for (const value of refused) assert.equal(createAuthorizationCodes(box).open(value), undefined, value);
  });

  it('hand out codes no caller can change for the next one', () => {
    const codes = createAuthorizationCodes(box);
    const code = codes.mint(loggedIn(1), 'session', now);
    const opened = codes.open(code.value)!;
    assert.throws(() => ((opened as { identityId: string }).identityId = 'someone-else'), TypeError);
    assert.throws(() => (opened.amr as string[]).push('otp'), TypeError);
    assert.throws(() => (opened.configTypes as string[]).push('x'), TypeError);
    assert.equal(codes.open(code.value)?.identityId, 'identity-1');
  });

  it('are minted for logged-in requests only', () => {
    assert.throws(() => createAuthorizationCodes(box).mint({ ...loggedIn(1), identityId: null }, 'session', now), /logged-in request/);
  });
});
