/**
 * The controller's compact JWS signer (src/crypto/jws.ts) against an independent verifier (jose): every kind of key
 * a controller's certificate may have signs tokens that verify with its public key, and with no other.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { describe, it } from 'node:test';
import { compactVerify, decodeProtectedHeader, jwtVerify } from 'jose';
import { canonicalSignature, compactSigner, isCanonicalSignature } from '../../src/crypto/jws.js';
import { ecdsaTwin, isLowS, tokenHasLowS } from '../helpers/ecdsa-twin.js';

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

  for (const alg of ['ES256', 'ES384', 'ES512']) {
    it(`signs ${alg} tokens only with a low S, whose high-S twin verifies with jose yet is refused as not canonical`, async () => {
      const { privateKey, publicKey } = KEYS.find((key) => key.alg === alg)!.pair();
      const sign = compactSigner(privateKey, alg);
      // Half of all raw ECDSA signatures have a high S: 40 low ones in a row by chance is a 2^-40 event.
      const tokens = await Promise.all(Array.from({ length: 40 }, (_, at) => sign({ alg }, { sub: `s${at}` })));
      assert.deepEqual(tokens.filter((token) => !tokenHasLowS(token)), []);
      for (const token of tokens.slice(0, 4)) {
        const twin = ecdsaTwin(token);
        await compactVerify(twin, publicKey, { algorithms: [alg] });
        assert.equal(isCanonicalSignature(token, alg), true);
        assert.equal(isCanonicalSignature(twin, alg), false);
      }
    });
  }

  it('puts an R || S signature made elsewhere into its low-S form, and leaves a low-S one as it is', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const data = Buffer.from('challenge');
    const signatures = Array.from({ length: 40 }, () => sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' }));
    const high = signatures.find((signature) => !isLowS('ES256', signature));
    assert.ok(high, 'one of 40 signatures has a high S');
    const low = canonicalSignature('ES256', high);
    assert.equal(isLowS('ES256', low), true);
    assert.equal(verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, low), true);
    assert.deepEqual(canonicalSignature('ES256', low), low);
  });

  it('leaves RSA and Ed25519 signatures to their verifiers, and Node refuses an Ed25519 S of L or more', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const token = await compactSigner(privateKey, 'EdDSA')({ alg: 'EdDSA' }, { sub: 'x' });
    assert.equal(isCanonicalSignature(token, 'EdDSA'), true);
    // RFC 8032 §5.1.7: S must be below L; S + L is the non-canonical twin, which the verifier must refuse.
    const L = 2n ** 252n + 27742317777372353535851937790883648493n;
    const [header, payload, encoded] = token.split('.') as [string, string, string];
    const signature = Buffer.from(encoded, 'base64url');
    const s = BigInt(`0x${Buffer.from(signature.subarray(32)).reverse().toString('hex')}`);
    const twinS = Buffer.from((s + L).toString(16).padStart(64, '0'), 'hex').reverse();
    const twin = Buffer.concat([signature.subarray(0, 32), twinS]);
    assert.equal(verify(null, Buffer.from(`${header}.${payload}`), publicKey, signature), true);
    assert.equal(verify(null, Buffer.from(`${header}.${payload}`), publicKey, twin), false);
  });

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
