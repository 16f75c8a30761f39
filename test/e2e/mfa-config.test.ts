/**
 * The TOTP settings of the controller config: the key that seals secrets at rest (`edge.totp.encryptionKeyFile`:
 * with a key file the stored secret is sealed under that key; a key file of the wrong size stops the controller at
 * start, naming the option), and the lockout (`maxAttempts`, `lockoutDuration`).
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
import { totpCode, totpTestClock, wrongTotpCode } from '../helpers/totp.js';

describe(`the TOTP settings of the controller config (${testDialect})`, () => {
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

  it('locks after edge.totp.maxAttempts wrong codes for edge.totp.lockoutDuration', async () => {
    const clock = totpTestClock();
    const ctl = await startTestController({ clock, modify: (config) => (config.edge.totp = { maxAttempts: 2, lockoutDuration: '1m' }) });
    try {
      await createIdentity(ctl.running.database, { name: 'locked-lou', username: 'locked-lou', password: 'locked-lou-password' });
      const login = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'locked-lou', password: 'locked-lou-password' } });
      const headers = { 'svc-session': String(login.headers['svc-session']) };
      const { provisioningUrl } = (await ctl.fetch('/edge/client/v1/current-identity/mfa', { method: 'POST', headers })).json().data;
      const verify = (code: string) => ctl.fetch('/edge/client/v1/current-identity/mfa/verify', { method: 'POST', headers, body: { code } });
      assert.equal((await verify(wrongTotpCode(provisioningUrl, clock.now()))).status, 400);
      const second = await verify(wrongTotpCode(provisioningUrl, clock.now()));
      assert.match(second.json().error.message, /locked for 1m/);
      const locked = await verify(totpCode(provisioningUrl, clock.now()));
      assert.equal(locked.status, 429);
      assert.equal(locked.headers['retry-after'], '60');
      clock.advance(61_000);
      assert.equal((await verify(totpCode(provisioningUrl, clock.now()))).status, 200);
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
