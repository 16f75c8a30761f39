/**
 * The pure parts of TOTP MFA: sealing secrets at rest (AES-256-GCM bound to their owner), the TOTP arithmetic
 * (RFC 6238 test vector, the one-step window), the shapes of typed codes, and recovery codes.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { createSecretBox, deriveSecretsKey, newSecretsKeyText, parseSecretsKey } from '../../src/crypto/secret-box.js';
import { classifyCode, matchingStep, newRecoveryCodes, newTotpSecret, provisioningUrl, totpCodeAt, totpStep } from '../../src/policy/totp.js';

describe('sealing secrets at rest', () => {
  const box = createSecretBox(parseSecretsKey(newSecretsKeyText()));

  it('opens what it sealed, for the same context only', () => {
    const sealed = box.seal('JBSWY3DPEHPK3PXP', 'mfa-secret:alice');
    assert.ok(!sealed.includes('JBSWY3DPEHPK3PXP'));
    assert.equal(box.open(sealed, 'mfa-secret:alice'), 'JBSWY3DPEHPK3PXP');
    assert.throws(() => box.open(sealed, 'mfa-secret:bob'));
    assert.notEqual(box.seal('same', 'c'), box.seal('same', 'c'), 'a fresh nonce every time');
  });

  it('refuses altered values and names a key it does not have', () => {
    const sealed = box.seal('secret', 'ctx');
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3] as string, 'base64url');
    body[0] = (body[0] as number) ^ 1;
    assert.throws(() => box.open([parts[0], parts[1], parts[2], body.toString('base64url')].join('.'), 'ctx'));
    const other = createSecretBox(parseSecretsKey(newSecretsKeyText()));
    assert.throws(() => other.open(sealed, 'ctx'), new RegExp(`sealed with secrets key ${box.keyId}`));
    assert.throws(() => box.open('garbage', 'ctx'), /malformed/);
  });

  it('derives a stable key from a private key, and reads key files as base64 or hex', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    assert.deepEqual(deriveSecretsKey(pem), deriveSecretsKey(pem));
    assert.equal(parseSecretsKey('ab'.repeat(32)).length, 32);
    assert.throws(() => parseSecretsKey('c2hvcnQ='), /32 random bytes/);
  });
});

describe('TOTP codes', () => {
  // RFC 6238 Appendix B: SHA-1 secret "12345678901234567890"; at T=59 s the 8-digit code is 94287082.
  const rfcSecret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

  it('computes the RFC 6238 test vector', () => {
    assert.equal(totpCodeAt(rfcSecret, new Date(59_000)), '287082');
    assert.equal(totpCodeAt(rfcSecret, new Date(1_111_111_109_000)), '081804');
  });

  it('accepts the previous, current and next step, and nothing further', () => {
    const now = new Date(1_700_000_015_000);
    const step = totpStep(now);
    for (const offset of [-1, 0, 1]) {
      const code = totpCodeAt(rfcSecret, new Date(now.getTime() + offset * 30_000));
      assert.equal(matchingStep(rfcSecret, code, now), step + offset);
    }
    for (const offset of [-2, 2]) assert.equal(matchingStep(rfcSecret, totpCodeAt(rfcSecret, new Date(now.getTime() + offset * 30_000)), now), null);
  });

  it('classifies typed codes', () => {
    assert.deepEqual(classifyCode(' 123456 '), { kind: 'totp', code: '123456' });
    assert.deepEqual(classifyCode('abcde2'), { kind: 'recovery', code: 'ABCDE2' });
    for (const bad of ['', '12345', '1234567', '12345a!', 'ABCDE1', 'ABCDEFG']) assert.deepEqual(classifyCode(bad), { kind: 'malformed' }, bad);
  });

  it('makes 160-bit secrets, the spec provisioning URL and 20 distinct recovery codes with a letter each', () => {
    const secret = newTotpSecret();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    assert.equal(provisioningUrl('ann smith', 'ctrl.example', secret), `otpauth://totp/ann%20smith?issuer=ctrl.example&secret=${secret}`);
    const codes = newRecoveryCodes();
    assert.equal(new Set(codes).size, 20);
    for (const code of codes) {
      assert.match(code, /^[A-Z2-7]{6}$/);
      assert.match(code, /[A-Z]/);
    }
  });
});
