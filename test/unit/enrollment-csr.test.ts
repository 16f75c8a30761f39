/** @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061). */
// The pieces of enrollment that need no server: CSR checks (RFC 2986), Accept negotiation (RFC 9110 section
// 12.5.1) and the enrollment JWT signer with its JWKS (RFC 7517).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { isApiError } from '../../src/errors/api-error.js';
import { JSON_TYPE, PEM_TYPE, preferredMediaType } from '../../src/http/edge-client/media-types.js';
import { generateKeyPair, x509 } from '../../src/pki/index.js';
import { parseCsr } from '../../src/services/enrollment/csr.js';
import { createEnrollmentJwtSigner } from '../../src/services/enrollment/enrollment-jwt.js';
import { makeCsr } from '../helpers/enrollment.js';

async function refusal(text: string | undefined): Promise<string> {
  try {
    await parseCsr(text);
  } catch (error) {
    if (isApiError(error) && error.code === 'MISSING_OR_INVALID_CSR') return String(error.cause?.reason);
    throw error;
  }
  throw new Error('parseCsr accepted the input');
}

describe('parseCsr', () => {
  it('accepts EC P-256, EC P-384 and RSA 2048 requests and returns their public key', async () => {
    for (const kind of ['p256', 'p384', 'rsa2048'] as const) {
      const { pem } = await makeCsr(kind);
      const csr = await parseCsr(pem);
      assert.deepEqual(Buffer.from(csr.publicKey.rawData), Buffer.from(new x509.Pkcs10CertificateRequest(pem).publicKey.rawData), kind);
    }
  });

  it('accepts the NEW CERTIFICATE REQUEST label older tools write, and text around the block', async () => {
    const { pem } = await makeCsr();
    const legacy = `subject=CN=device\n${pem.replace(/CERTIFICATE REQUEST/g, 'NEW CERTIFICATE REQUEST')}\n`;
    assert.ok(await parseCsr(legacy));
  });

  it('says what is wrong: nothing, not PEM, not a CSR, undecodable, unsupported key', async () => {
    assert.match(await refusal(undefined), /carries no CSR/);
    assert.match(await refusal('   \n'), /carries no CSR/);
    assert.match(await refusal('MIIB...'), /not PEM/);
    assert.match(await refusal('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----'), /not a CSR: it holds a PEM PUBLIC KEY block/);
    assert.match(await refusal('-----BEGIN CERTIFICATE REQUEST-----\n!!!!\n-----END CERTIFICATE REQUEST-----'), /empty or not base64/);
    assert.match(await refusal('-----BEGIN CERTIFICATE REQUEST-----\nMAA=\n-----END CERTIFICATE REQUEST-----'), /not a DER-encoded PKCS#10/);
    assert.match(await refusal((await makeCsr('ed25519')).pem), /ed25519 is not accepted/);
  });
});

describe('preferredMediaType', () => {
  const offered = [JSON_TYPE, PEM_TYPE];
  const cases: Array<[string | undefined, string | undefined]> = [
    [undefined, JSON_TYPE],
    ['', JSON_TYPE],
    ['*/*', JSON_TYPE],
    ['application/*', JSON_TYPE],
    ['application/x-pem-file', PEM_TYPE],
    ['application/json;q=0.5, application/x-pem-file', PEM_TYPE],
    ['application/x-pem-file;q=0.4, application/*;q=0.5', JSON_TYPE],
    ['Application/X-PEM-File; charset=utf-8', PEM_TYPE],
    ['*/*;q=0.1, application/json;q=0', PEM_TYPE],
    ['text/html', undefined],
    ['application/json;q=0, application/x-pem-file;q=0', undefined],
  ];
  for (const [accept, expected] of cases) {
    it(`chooses ${expected ?? 'nothing'} for Accept ${JSON.stringify(accept)}`, () => {
      assert.equal(preferredMediaType(accept, offered), expected);
    });
  }
});

describe('createEnrollmentJwtSigner', () => {
  it('signs ES256 JWTs that its own JWKS verifies, with kid, em, sub, jti, aud and exp', async () => {
    const keys = await generateKeyPair();
    const leaf = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: '01',
      name: 'CN=unit',
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 3_600_000),
      keys,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    });
    const signer = createEnrollmentJwtSigner({ identity: { serverLeaf: leaf, serverKey: keys.privateKey }, issuer: 'https://ctrl.example:1280' });
    const expiresAt = new Date(Math.floor(Date.now() / 1000) * 1000 + 600_000);
    const jwt = await signer.sign({ method: 'updb', identityId: 'id-1', token: 'tok-1', expiresAt }, new Date());
    const jwks = signer.jwks();
    assert.deepEqual(Object.keys(jwks.keys[0] ?? {}).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    const { payload, protectedHeader } = await jwtVerify(jwt, createLocalJWKSet(jwks), { issuer: 'https://ctrl.example:1280', audience: 'svc-enroller' });
    assert.equal(protectedHeader.kid, jwks.keys[0]?.kid);
    assert.deepEqual([payload.em, payload.sub, payload.jti, payload.exp], ['updb', 'id-1', 'tok-1', expiresAt.getTime() / 1000]);
  });
});
