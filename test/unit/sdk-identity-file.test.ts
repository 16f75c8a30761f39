/**
 * The SDK's identity file (src/sdk/identity-file.ts): the file `svc edge enroll` writes loads with `pem:` values and
 * with `file:` values (relative to the file's folder), and every file that will not do is refused with one sentence
 * naming the file and the field: a missing field, a value that is not PEM, a key that is not the certificate's.
 * @store-independent: nothing here reads the store under test.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SdkError } from '../../src/sdk/errors.js';
import { loadIdentity, readIdentityFile } from '../../src/sdk/identity-file.js';
import { makeOpensslPki, type OpensslPki } from '../helpers/openssl-pki.js';

describe('SDK identity file', () => {
  let pki: OpensslPki;
  let dir: string;
  let client: { certPem: string; keyPem: string };
  let other: { certPem: string; keyPem: string };
  const api = 'https://ctrl.example.test:1280/edge/client/v1';
  const good = () => ({ ztAPI: api, ztAPIs: [api], id: { key: `pem:${client.keyPem}`, cert: `pem:${client.certPem}`, ca: `pem:${pki.root.certPem}` } });
  before(() => {
    pki = makeOpensslPki('Sdk Test');
    client = pki.client('device-7');
    other = pki.client('someone-else');
    dir = mkdtempSync(join(tmpdir(), 'svc-sdk-id-'));
  });
  after(() => {
    pki.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The SdkError a load throws (fails the test when it loads). */
  const refusal = (file: unknown): SdkError => {
    try {
      loadIdentity(file, "file 'id.json'");
    } catch (error) {
      assert.ok(error instanceof SdkError, String(error));
      return error;
    }
    assert.fail('the identity loaded');
  };

  it('loads the pem: form enroll writes, with the client API, the certificate, its key, the CAs and the common name', () => {
    const id = loadIdentity(good());
    assert.equal(id.clientApi.href, api);
    assert.equal(id.commonName, 'device-7');
    assert.equal(id.certPem, client.certPem);
    assert.equal(id.caPem, pki.root.certPem);
  });

  it('reads file: values from disk, a relative path taken from the identity file\'s folder', () => {
    writeFileSync(join(dir, 'key.pem'), client.keyPem);
    writeFileSync(join(dir, 'cert.pem'), client.certPem);
    writeFileSync(join(dir, 'ca.pem'), pki.root.certPem);
    const path = join(dir, 'id.json');
    writeFileSync(path, JSON.stringify({ ztAPI: api, id: { key: 'file:key.pem', cert: `file://${join(dir, 'cert.pem')}`, ca: 'file:ca.pem' } }));
    const id = readIdentityFile(path);
    assert.equal(id.keyPem, client.keyPem);
    assert.equal(id.caPem, pki.root.certPem);
  });

  it('refuses each missing field with a sentence naming the file and the field', () => {
    const cases: Array<[string, (f: any) => void]> = [
      ['ztAPI is missing', (f) => delete f.ztAPI],
      ['id is missing (it holds key, cert and ca)', (f) => delete f.id],
      ['id.cert is missing', (f) => delete f.id.cert],
      ['id.key is missing', (f) => delete f.id.key],
    ];
    for (const [sentence, change] of cases) {
      const file = good();
      change(file);
      const error = refusal(file);
      assert.equal(error.code, 'BAD_IDENTITY');
      assert.equal(error.message, `identity file 'id.json': ${sentence}`);
    }
  });

  it('refuses a bad PEM, a key of another certificate, an unknown value prefix, an unreadable file: path and a non-https API, naming the field', () => {
    const cases: Array<[RegExp, (f: any) => void]> = [
      [/id\.cert holds no PEM certificate$/, (f) => (f.id.cert = 'pem:-----BEGIN NOTHING-----')],
      [/id\.cert is not a readable PEM certificate$/, (f) => (f.id.cert = 'pem:-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----')],
      [/id\.key is not a PEM private key$/, (f) => (f.id.key = 'pem:not a key')],
      [/id\.key is not the private key of id\.cert's certificate$/, (f) => (f.id.key = `pem:${other.keyPem}`)],
      [/id\.ca holds no PEM certificate$/, (f) => (f.id.ca = 'pem:nothing here')],
      [/id\.cert must start with pem: or file:, not 'MIIB'$/, (f) => (f.id.cert = 'MIIB')],
      [/id\.key names file '.*missing\.pem', which cannot be read \(ENOENT\)$/, (f) => (f.id.key = 'file:/nowhere/missing.pem')],
      [/ztAPI 'http:\/\/ctrl:1280' is not an https:\/\/ URL$/, (f) => (f.ztAPI = 'http://ctrl:1280')],
      [/ztAPIs\[0\] 'nope' is not a URL$/, (f) => (f.ztAPIs = ['nope'])],
    ];
    for (const [sentence, change] of cases) {
      const file = good();
      change(file);
      const error = refusal(file);
      assert.equal(error.code, 'BAD_IDENTITY');
      assert.match(error.message, /^identity file 'id\.json': /);
      assert.match(error.message, sentence);
    }
  });

  it('refuses a file that is not JSON, naming the file', () => {
    const path = join(dir, 'broken.json');
    writeFileSync(path, '{"ztAPI": ');
    assert.throws(() => readIdentityFile(path), (error: SdkError) => error.code === 'BAD_IDENTITY' && error.message.startsWith(`identity file '${path}' is not JSON`));
    assert.throws(() => readIdentityFile(join(dir, 'absent.json')), (error: SdkError) => error.code === 'BAD_IDENTITY' && /cannot be read \(ENOENT\)$/.test(error.message));
  });
});
