/** @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061). */
// loadIdentity: reading an identity's files and refusing broken ones with a message naming the file.
import assert from 'node:assert/strict';
import { createPrivateKey, webcrypto } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { IdentityFiles } from '../../src/config/types.js';
import { manualClock } from '../../src/shared/clock.js';
import { createControllerPki, identityFilesFromPki, loadIdentity, type PkiPaths } from '../../src/pki/index.js';

describe('loadIdentity', () => {
  let tmp: string;
  let paths: PkiPaths;
  let files: IdentityFiles;
  let other: PkiPaths;
  /** Writes `text` to a fresh file in the temp folder and returns its path. */
  const fileWith = async (name: string, text: string) => {
    const file = join(tmp, name);
    await writeFile(file, text);
    return file;
  };

  before(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'svc-pki-load-'));
    paths = await createControllerPki(join(tmp, 'a'), { hosts: ['ctrl.example.com'] });
    other = await createControllerPki(join(tmp, 'b'), { hosts: [] });
    files = identityFilesFromPki(paths);
  });
  after(async () => rm(tmp, { recursive: true, force: true }));

  it('reads a created identity: chains leaf first, every CA certificate, and a server key that signs ES256', async () => {
    const identity = await loadIdentity(files);
    assert.equal((identity.serverChainPem.match(/BEGIN CERTIFICATE/g) ?? []).length, 2);
    assert.equal((identity.clientChainPem.match(/BEGIN CERTIFICATE/g) ?? []).length, 2);
    assert.equal(identity.caPems.length, 2);
    assert.equal(identity.serverLeaf.subjectName.getField('CN')[0], 'ctrl.example.com');
    assert.match(identity.serverKeyPem, /^-----BEGIN PRIVATE KEY-----/);
    assert.match(identity.clientKeyPem, /^-----BEGIN PRIVATE KEY-----/);

    const data = new TextEncoder().encode('header.payload');
    const algorithm = { name: 'ECDSA', hash: 'SHA-256' };
    const signature = await webcrypto.subtle.sign(algorithm, identity.serverKey, data);
    const publicKey = await identity.serverLeaf.publicKey.export({ name: 'ECDSA', namedCurve: 'P-256' }, ['verify']);
    assert.equal(await webcrypto.subtle.verify(algorithm, publicKey, signature, data), true);
    assert.equal(identity.serverKey.extractable, false);
  });

  it('uses the one key for both certificates when no separate server key is given', async () => {
    const shared = { cert: paths.serverCert, serverCert: paths.serverCert, key: paths.serverKey, ca: paths.caBundle };
    const identity = await loadIdentity(shared);
    assert.equal(identity.clientKeyPem, identity.serverKeyPem);
  });

  it('rejects a certificate file that is not PEM, naming the file', async () => {
    const bad = await fileWith('not-pem.pem', 'this is not a certificate\n');
    await assert.rejects(loadIdentity({ ...files, serverCert: bad }), { name: 'PkiError', message: `${bad}: is not PEM (no -----BEGIN ...----- block found)` });
  });

  it('rejects a key file that holds a certificate instead of a key, naming the file', async () => {
    await assert.rejects(loadIdentity({ ...files, serverKey: paths.rootCert }), {
      name: 'PkiError',
      message: `${paths.rootCert}: holds no private key (found CERTIFICATE); expected -----BEGIN PRIVATE KEY-----`,
    });
  });

  it('rejects a server key that does not match the server certificate, naming both files', async () => {
    await assert.rejects(loadIdentity({ ...files, serverKey: other.serverKey }), {
      name: 'PkiError',
      message: `${other.serverKey}: the private key does not match the certificate in ${paths.serverCert}`,
    });
  });

  it('rejects a client key that does not match the client certificate', async () => {
    await assert.rejects(loadIdentity({ ...files, key: other.clientKey }), {
      message: `${other.clientKey}: the private key does not match the certificate in ${paths.clientCert}`,
    });
  });

  it('says when the key belongs to a later certificate of the chain, so the leaf is not first', async () => {
    const [leaf, intermediate] = (await readFile(paths.serverCert, 'utf8')).split(/(?<=-----END CERTIFICATE-----\n)/);
    const reversed = await fileWith('reversed.chain.pem', `${intermediate}${leaf}`);
    await assert.rejects(loadIdentity({ ...files, serverCert: reversed }), {
      message: `${paths.serverKey}: the private key belongs to certificate 2 in ${reversed}; the leaf certificate must come first`,
    });
  });

  it('rejects an expired server certificate, naming the file and the date', async () => {
    const clock = manualClock(new Date('2020-01-01T00:00:00Z'));
    const old = identityFilesFromPki(await createControllerPki(join(tmp, 'old'), { hosts: [], clock }));
    await assert.rejects(loadIdentity(old), {
      name: 'PkiError',
      message: `${old.serverCert}: the certificate "O=svc, CN=localhost" expired on 2020-12-31T00:00:00.000Z`,
    });
  });

  it('rejects a server certificate that is not valid yet', async () => {
    const clock = manualClock(new Date('2020-01-01T00:00:00Z'));
    await assert.rejects(loadIdentity(files, { clock }), { message: new RegExp(`^${paths.serverCert}: the certificate .* is not valid until `) });
  });

  it('rejects a missing file, naming it', async () => {
    const missing = join(tmp, 'nowhere', 'ca.pem');
    await assert.rejects(loadIdentity({ ...files, ca: missing }), { name: 'PkiError', message: `${missing}: the file does not exist` });
  });

  it('rejects an empty CA bundle and an encrypted key without showing their content', async () => {
    const empty = await fileWith('empty.pem', '');
    await assert.rejects(loadIdentity({ ...files, ca: empty }), { message: `${empty}: the file is empty; expected PEM` });
    const encrypted = await fileWith('encrypted.key.pem', '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n');
    await assert.rejects(loadIdentity({ ...files, serverKey: encrypted }), { message: new RegExp(`^${encrypted}: the private key is encrypted`) });
  });

  it('accepts a key file in the SEC1 form openssl writes', async () => {
    const sec1 = createPrivateKey(await readFile(paths.serverKey, 'utf8')).export({ type: 'sec1', format: 'pem' }) as string;
    const file = await fileWith('sec1.key.pem', sec1);
    assert.match(sec1, /^-----BEGIN EC PRIVATE KEY-----/);
    const identity = await loadIdentity({ ...files, serverKey: file });
    assert.match(identity.serverKeyPem, /^-----BEGIN PRIVATE KEY-----/);
  });
});
