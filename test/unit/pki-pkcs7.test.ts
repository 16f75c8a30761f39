/** @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061). */
// Certs-only PKCS#7 for EST /cacerts, and splitting PEM bundles.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createControllerPki, pkcs7CertsOnlyBase64, splitPemCertificates, x509, type PkiPaths } from '../../src/pki/index.js';

const OPENSSL = '/usr/bin/openssl';

describe('pkcs7CertsOnlyBase64', () => {
  let tmp: string;
  let paths: PkiPaths;
  let rootPem: string;
  let intermediatePem: string;

  before(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'svc-pki-p7-'));
    paths = await createControllerPki(join(tmp, 'pki'), { hosts: [], commonName: 'p7' });
    rootPem = await readFile(paths.rootCert, 'utf8');
    intermediatePem = await readFile(paths.intermediateCert, 'utf8');
  });
  after(async () => rm(tmp, { recursive: true, force: true }));

  it('produces a bundle that openssl pkcs7 reads, listing both CA subjects', (t) => {
    const der = Buffer.from(pkcs7CertsOnlyBase64([rootPem, intermediatePem]), 'base64');
    if (!existsSync(OPENSSL)) {
      // Without openssl the bundle is parsed back by the library instead (weaker: same implementation).
      t.diagnostic(`${OPENSSL} not found: checked with @peculiar/x509 only`);
      assert.deepEqual(Array.from(new x509.X509Certificates(der), (c) => c.subject), ['O=svc, CN=p7 root CA', 'O=svc, CN=p7 intermediate CA']);
      return;
    }
    const result = spawnSync(OPENSSL, ['pkcs7', '-inform', 'DER', '-print_certs', '-noout'], { input: der, encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    const subjects = result.stdout.split('\n').filter((line) => line.startsWith('subject='));
    assert.deepEqual(subjects, ['subject=O = svc, CN = p7 root CA', 'subject=O = svc, CN = p7 intermediate CA']);
  });

  it('wraps the base64 at 64 characters without a trailing newline', () => {
    const body = pkcs7CertsOnlyBase64([rootPem, intermediatePem]);
    const lines = body.split('\n');
    assert.ok(lines.length > 1);
    assert.ok(lines.slice(0, -1).every((line) => line.length === 64));
    assert.ok((lines.at(-1)?.length ?? 0) > 0 && (lines.at(-1)?.length ?? 0) <= 64);
    assert.ok(!body.endsWith('\n'));
  });

  it('includes a certificate given twice only once', async () => {
    const bundle = await readFile(paths.caBundle, 'utf8');
    const der = Buffer.from(pkcs7CertsOnlyBase64([bundle, rootPem, intermediatePem]), 'base64');
    assert.equal(new x509.X509Certificates(der).length, 2);
  });

  it('refuses an empty list', () => {
    assert.throws(() => pkcs7CertsOnlyBase64([]), { name: 'PkiError' });
  });
});

describe('splitPemCertificates', () => {
  it('returns each certificate of a bundle as its own PEM and skips keys and other text', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'svc-pki-split-'));
    try {
      const paths = await createControllerPki(join(tmp, 'pki'), { hosts: [] });
      const root = await readFile(paths.rootCert, 'utf8');
      const intermediate = await readFile(paths.intermediateCert, 'utf8');
      const key = await readFile(paths.rootKey, 'utf8');
      const messy = `subject=root\r\n${root.replaceAll('\n', '\r\n')}${key}\nsome comment\n${intermediate}`;
      assert.deepEqual(splitPemCertificates(messy), [root, intermediate]);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });

  it('returns nothing for text without certificates', () => {
    assert.deepEqual(splitPemCertificates('hello'), []);
  });
});
