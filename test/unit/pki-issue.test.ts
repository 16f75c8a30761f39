/** @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061). */
// issueCertificate and loadCertificateAuthority: the path enrollment will take (CSR in, client cert out).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { manualClock } from '../../src/shared/clock.js';
import {
  createControllerPki,
  generateKeyPair,
  issueCertificate,
  loadCertificateAuthority,
  x509,
  type LoadedCertificateAuthority,
  type PkiPaths,
} from '../../src/pki/index.js';

const DAY_MS = 86_400_000;

describe('issueCertificate', () => {
  let tmp: string;
  let paths: PkiPaths;
  let signer: LoadedCertificateAuthority;

  before(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'svc-pki-issue-'));
    paths = await createControllerPki(join(tmp, 'pki'), { hosts: [] });
    signer = await loadCertificateAuthority({ cert: paths.intermediateCert, key: paths.intermediateKey });
  });
  after(async () => rm(tmp, { recursive: true, force: true }));

  it('issues a client certificate for the public key of a CSR, signed by the intermediate', async () => {
    const keys = await generateKeyPair();
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=ignored', keys, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } });
    assert.equal(await csr.verify(), true);
    const clock = manualClock(new Date('2030-01-01T00:00:00Z'));
    const cert = await issueCertificate({
      profile: 'client',
      publicKey: csr.publicKey,
      subject: { commonName: 'identity-42', organizationalUnit: 'edge, "clients"' },
      subjectAltNames: { uri: ['spiffe://svc/identity/identity-42'] },
      validityMs: 30 * DAY_MS,
      issuer: signer,
      clock,
    });
    assert.equal(await cert.verify({ publicKey: signer.cert.publicKey, signatureOnly: true }), true);
    assert.equal(cert.subjectName.getField('CN')[0], 'identity-42');
    assert.equal(cert.subjectName.getField('OU')[0], 'edge, "clients"');
    assert.equal(cert.notAfter.toISOString(), '2030-01-31T00:00:00.000Z');
    assert.deepEqual(cert.getExtension(x509.SubjectAlternativeNameExtension)?.names.toJSON(), [{ type: 'url', value: 'spiffe://svc/identity/identity-42' }]);
    assert.equal(cert.getExtension(x509.BasicConstraintsExtension)?.ca, false);
    assert.equal(signer.chainPems.length, 1);
  });

  it('never lets a certificate outlive its issuer', async () => {
    const keys = await generateKeyPair();
    const cert = await issueCertificate({ profile: 'client', publicKey: keys.publicKey, subject: { commonName: 'long' }, validityMs: 100 * 365 * DAY_MS, issuer: signer });
    assert.equal(cert.notAfter.getTime(), signer.cert.notAfter.getTime());
  });

  it('refuses a server certificate without any DNS name or IP address', async () => {
    const keys = await generateKeyPair();
    await assert.rejects(issueCertificate({ profile: 'server', publicKey: keys.publicKey, subject: { commonName: 'x' }, validityMs: DAY_MS, issuer: signer }), {
      name: 'PkiError',
      message: 'a server certificate needs at least one DNS name or IP address',
    });
  });

  it('refuses to sign with a certificate that is not a CA', async () => {
    const leafKeys = await generateKeyPair();
    const leaf = await issueCertificate({ profile: 'client', publicKey: leafKeys.publicKey, subject: { commonName: 'leaf' }, validityMs: DAY_MS, issuer: signer });
    const keys = await generateKeyPair();
    await assert.rejects(
      issueCertificate({ profile: 'client', publicKey: keys.publicKey, subject: { commonName: 'y' }, validityMs: DAY_MS, issuer: { cert: leaf, key: leafKeys.privateKey } }),
      { name: 'PkiError', message: 'the issuer "CN=leaf" is not a CA certificate' },
    );
  });

  it('refuses to load a leaf certificate as a signing CA, naming the file', async () => {
    await assert.rejects(loadCertificateAuthority({ cert: paths.serverCert, key: paths.serverKey }), {
      name: 'PkiError',
      message: `${paths.serverCert}: the certificate "O=svc, CN=localhost" is not a CA certificate, so it cannot sign`,
    });
  });
});
