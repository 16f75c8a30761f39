/**
 * The controller's compact JWS signer (src/crypto/jws.ts) against an independent verifier (jose): every kind of key
 * a controller's certificate may have signs tokens that verify with its public key, and with no other.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, it } from 'node:test';
import { compactVerify, decodeProtectedHeader, jwtVerify } from 'jose';
import { compactSigner } from '../../src/crypto/jws.js';

const KEYS: Array<{ alg: string; pair: () => { privateKey: KeyObject; publicKey: KeyObject } }> = [
  { alg: 'ES256', pair: () => generateKeyPairSync('ec', { namedCurve: 'P-256' }) },
  { alg: 'ES384', pair: () => generateKeyPairSync('ec', { namedCurve: 'P-384' }) },
  { alg: 'ES512', pair: () => generateKeyPairSync('ec', { namedCurve: 'P-521' }) },
  { alg: 'RS256', pair: () => generateKeyPairSync('rsa', { modulusLength: 2048 }) },
  { alg: 'PS256', pair: () => generateKeyPairSync('rsa', { modulusLength: 2048 }) },
  { alg: 'EdDSA', pair: () => generateKeyPairSync('ed25519') },
];

describe('compact JWS signer', () => {
  for (const { alg, pair } of KEYS) {
    it(`signs ${alg} tokens that jose verifies with the public key, header and claims as given`, async () => {
      const { privateKey, publicKey } = pair();
      const now = Math.floor(Date.now() / 1000);
      const token = await compactSigner(privateKey, alg)({ alg, kid: 'k1', typ: 'at+jwt' }, { sub: 'someone', aud: ['svc'], iat: now, exp: now + 60, name: 'Zoë 😀' });
      const { payload, protectedHeader } = await jwtVerify(token, publicKey, { algorithms: [alg], audience: 'svc', typ: 'at+jwt' });
      assert.deepEqual(protectedHeader, { alg, kid: 'k1', typ: 'at+jwt' });
      assert.equal(payload.name, 'Zoë 😀');
      assert.equal(payload.sub, 'someone');
    });
  }

  it('signs nothing another key verifies', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    const token = await compactSigner(privateKey, 'ES256')({ alg: 'ES256' }, { sub: 'x' });
    await assert.rejects(compactVerify(token, other), /signature verification failed/);
    assert.deepEqual(decodeProtectedHeader(token), { alg: 'ES256' });
  });

  it('refuses an algorithm it does not know, and a header naming another algorithm than the key', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    assert.throws(() => compactSigner(privateKey, 'none'), /no JWS signer for algorithm none/);
    await assert.rejects(compactSigner(privateKey, 'ES256')({ alg: 'HS256' }, {}), /not the key's ES256/);
  });
});
