/**
 * The key that seals TOTP secrets at rest (`edge.totp.encryptionKeyFile`): with a key file the stored secret is
 * sealed under that key; a key file of the wrong size stops the controller at start, naming the option.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createSecretBox, newSecretsKeyText, parseSecretsKey } from '../../src/crypto/secret-box.js';
import { startTestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';

describe(`the TOTP secrets key file (${testDialect})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-totp-key-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('seals enrollments under the configured key', async () => {
    const keyFile = join(dir, 'totp.key');
    const keyText = newSecretsKeyText();
    writeFileSync(keyFile, keyText, { mode: 0o600 });
    const ctl = await startTestController({ modify: (config) => (config.edge.totp = { encryptionKeyFile: keyFile }) });
    try {
      await createIdentity(ctl.running.database, { name: 'keyed-kate', username: 'keyed-kate', password: 'keyed-kate-password' });
      const login = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'keyed-kate', password: 'keyed-kate-password' } });
      const res = await ctl.fetch('/edge/client/v1/current-identity/mfa', { method: 'POST', headers: { 'svc-session': String(login.headers['svc-session']) } });
      assert.equal(res.status, 201, res.text);
      const row = await ctl.running.database.db.selectFrom('mfa_enrollments').selectAll().executeTakeFirstOrThrow();
      const box = createSecretBox(parseSecretsKey(keyText));
      assert.equal(row.secret_sealed.split('.')[1], box.keyId);
      assert.equal(box.open(row.secret_sealed, `mfa-secret:${row.identity_id}`), new URL(res.json().data.provisioningUrl).searchParams.get('secret'));
    } finally {
      await ctl.close();
    }
  });

  it('refuses to start with a key file that does not hold 32 bytes, naming the option', async () => {
    const keyFile = join(dir, 'short.key');
    writeFileSync(keyFile, 'c2hvcnQ=\n');
    await assert.rejects(startTestController({ modify: (config) => (config.edge.totp = { encryptionKeyFile: keyFile }) }), /edge\.totp\.encryptionKeyFile .*32 random bytes/);
  });
});
