/** @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061). */
// createControllerPki: the files it writes, their permissions, and the certificates' shape and chain.
import assert from 'node:assert/strict';
import { X509Certificate as NodeX509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { certificateFingerprint, createControllerPki, splitPemCertificates, x509, type PkiPaths } from '../../src/pki/index.js';

describe('createControllerPki', () => {
  let tmp: string;
  let dir: string;
  let paths: PkiPaths;
  const read = async (file: string) => splitPemCertificates(await readFile(file, 'utf8')).map((pem) => new x509.X509Certificate(pem));

  before(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'svc-pki-create-'));
    dir = join(tmp, 'pki');
    paths = await createControllerPki(dir, { hosts: ['ctrl.example.com', '192.0.2.10', '[2001:db8::1]'], commonName: 'ctrl-1' });
  });
  after(async () => rm(tmp, { recursive: true, force: true }));

  it('writes every file under the folder, which only its owner can enter', async () => {
    assert.deepEqual(
      Object.values(paths).map((p) => p.slice(dir.length + 1)).sort(),
      ['ca-bundle.pem', 'client.chain.pem', 'client.key.pem', 'intermediate.cert.pem', 'intermediate.key.pem', 'root.cert.pem', 'root.key.pem', 'server.chain.pem', 'server.key.pem'],
    );
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
  });

  it('writes private keys as PKCS#8 PEM readable only by their owner', async () => {
    for (const file of [paths.rootKey, paths.intermediateKey, paths.serverKey, paths.clientKey]) {
      assert.equal((await stat(file)).mode & 0o777, 0o600, file);
      assert.match(await readFile(file, 'utf8'), /^-----BEGIN PRIVATE KEY-----\n/);
    }
  });

  it('chains the server leaf to the intermediate and the root, each signature verifying', async () => {
    const [leaf, chainIntermediate] = await read(paths.serverCert);
    const [root, intermediate] = await read(paths.caBundle);
    assert.ok(leaf && chainIntermediate && root && intermediate);
    assert.equal(chainIntermediate.toString('base64'), intermediate.toString('base64'));

    const chain = await new x509.X509ChainBuilder({ certificates: [root, intermediate] }).build(leaf);
    assert.deepEqual(Array.from(chain, (c) => c.subject), [leaf.subject, intermediate.subject, root.subject]);
    assert.equal(await leaf.verify({ publicKey: intermediate.publicKey, signatureOnly: true }), true);
    assert.equal(await intermediate.verify({ publicKey: root.publicKey, signatureOnly: true }), true);
    assert.equal(await root.isSelfSigned(), true);
  });

  it('puts the given hosts and localhost, 127.0.0.1 and ::1 in the server certificate', async () => {
    const [leaf] = await read(paths.serverCert);
    const names = leaf?.getExtension(x509.SubjectAlternativeNameExtension)?.names.toJSON() ?? [];
    const of = (type: string) => names.filter((n) => n.type === type).map((n) => n.value).sort();
    assert.deepEqual(of('dns'), ['ctrl.example.com', 'localhost']);
    assert.deepEqual(of('ip'), ['127.0.0.1', '192.0.2.10', '2001:db8::1', '::1']);
    assert.deepEqual([...(leaf?.getExtension(x509.ExtendedKeyUsageExtension)?.usages ?? [])], [x509.ExtendedKeyUsage.serverAuth]);
  });

  it('gives the client certificate the common name and clientAuth usage, chained to the intermediate', async () => {
    const [client, intermediate] = await read(paths.clientCert);
    assert.equal(client?.subjectName.getField('CN')[0], 'ctrl-1');
    assert.deepEqual([...(client?.getExtension(x509.ExtendedKeyUsageExtension)?.usages ?? [])], [x509.ExtendedKeyUsage.clientAuth]);
    assert.equal(await client?.verify({ publicKey: intermediate?.publicKey, signatureOnly: true }), true);
  });

  it('limits the intermediate to signing leaves (CA, path length 0) for five years under a ten-year root', async () => {
    const [intermediate] = await read(paths.intermediateCert);
    const [root] = await read(paths.rootCert);
    const constraints = intermediate?.getExtension(x509.BasicConstraintsExtension);
    assert.equal(constraints?.ca, true);
    assert.equal(constraints?.pathLength, 0);
    const years = (c: x509.X509Certificate | undefined) => ((c?.notAfter.getTime() ?? 0) - Date.now()) / (365 * 86_400_000);
    assert.ok(Math.abs(years(intermediate) - 5) < 0.01);
    assert.ok(Math.abs(years(root) - 10) < 0.01);
  });

  it('gives every certificate a distinct positive 16-byte serial and an ECDSA P-256 SHA-256 signature', async () => {
    const all = [...(await read(paths.caBundle)), ...(await read(paths.serverCert)).slice(0, 1), ...(await read(paths.clientCert)).slice(0, 1)];
    const serials = all.map((c) => new NodeX509Certificate(c.toString('pem')).serialNumber);
    assert.equal(new Set(serials).size, 4);
    for (const serial of serials) assert.match(serial, /^[4-7][0-9A-F]{31}$/);
    for (const cert of all) {
      assert.deepEqual(cert.signatureAlgorithm, { name: 'ECDSA', hash: { name: 'SHA-256' } });
      assert.equal((cert.publicKey.algorithm as { namedCurve?: string }).namedCurve, 'P-256');
    }
  });

  it('reports the SHA-1 fingerprint of the leaf as lowercase hex', async () => {
    const pem = await readFile(paths.serverCert, 'utf8');
    const expected = new NodeX509Certificate(pem).fingerprint.replaceAll(':', '').toLowerCase();
    assert.equal(certificateFingerprint(pem), expected);
  });

  it('refuses to overwrite an existing PKI and names the file', async () => {
    await assert.rejects(createControllerPki(dir, { hosts: [] }), { name: 'PkiError', message: new RegExp(`^${paths.rootCert}: the file already exists`) });
  });

  it('refuses a host that is neither a DNS name nor an IP address', async () => {
    await assert.rejects(createControllerPki(join(tmp, 'bad'), { hosts: ['not a host'] }), { name: 'PkiError', message: /"not a host" is neither a DNS name nor an IP address/ });
  });
});
