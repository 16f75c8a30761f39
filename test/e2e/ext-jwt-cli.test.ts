/**
 * `svc ext-jwt check` as an operator runs it: a real process against a running controller and a real JWKS server,
 * printing which identity a token maps to or the first check it fails.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCliInProcess as runCli } from '../helpers/cli-in-process.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { signerBody, signingKey, signToken, startJwksServer, type JwksServer, type SigningKey } from '../helpers/external-jwt.js';
import { createIdentity, type IdentityFixture } from '../helpers/fixtures.js';
import { managementClient } from '../helpers/management.js';

describe(`svc ext-jwt check (${testDialect})`, () => {
  let ctl: TestController;
  let server: JwksServer;
  let key: SigningKey;
  let signerId: string;
  let alice: IdentityFixture;
  let home: string;

  before(async () => {
    ctl = await startTestController();
    const admin = managementClient(ctl, await ctl.adminToken());
    server = await startJwksServer(ctl.pki);
    key = await signingKey('cli-key');
    server.jwks.keys.push(key.publicJwk);
    signerId = (await admin.post('/external-jwt-signers', signerBody('cli-signer', { jwksEndpoint: `${server.origin}/jwks` }))).json().data.id;
    alice = await createIdentity(ctl.running.database, { name: 'alice-cli' });
    home = mkdtempSync(join(tmpdir(), 'svc-cli-home-'));
  });
  after(async () => {
    rmSync(home, { recursive: true, force: true });
    await server.close();
    await ctl.close();
  });

  const check = (token: string, extra: string[] = [], env: Record<string, string> = {}) =>
    runCli(['ext-jwt', 'check', '--controller', ctl.baseUrl, '--signer', signerId, '--token', token, ...extra], { SVC_HOME: home, ...env });
  const adminLogin = ['--username', 'admin', '--password', 'admin-password'];

  it('prints the identity a valid token maps to and exits 0', async () => {
    const { code, stdout, stderr } = await check(await signToken({ sub: alice.id }, { key }), [...adminLogin, '--ca', ctl.pki.caBundle]);
    assert.equal(stdout, `ok: token maps to identity alice-cli (${alice.id})\n`, stderr);
    assert.equal(code, 0);
  });

  it('prints the first failing check in plain words and exits 1', async () => {
    const exp = Math.floor(Date.now() / 1000) - 3600;
    const { code, stdout } = await check(await signToken({ sub: alice.id }, { key, exp }), ['--ca', ctl.pki.caBundle], {
      SVC_ADMIN_USER: 'admin',
      SVC_ADMIN_PASSWORD: 'admin-password',
    });
    assert.match(stdout, /^refused \(expired\): the token expired at .* \(exp \d+\); now is .*, allowed clock skew 30s\n$/);
    assert.equal(code, 1);
  });

  it("trusts the quickstart home's CA bundle when no --ca is given", async () => {
    mkdirSync(join(home, 'pki'), { recursive: true });
    copyFileSync(ctl.pki.caBundle, join(home, 'pki', 'ca-bundle.pem'));
    const { code, stdout } = await check(await signToken({ sub: 'nobody' }, { key }), adminLogin);
    assert.equal(stdout, 'refused (no-identity): no identity has the id "nobody" (claim sub)\n');
    assert.equal(code, 1);
  });

  it('exits 1 naming the problem when the login or the signer is wrong', async () => {
    const token = await signToken({ sub: alice.id }, { key });
    const login = await check(token, ['--username', 'admin', '--password', 'wrong-password', '--ca', ctl.pki.caBundle]);
    assert.deepEqual([login.code, login.stdout], [1, '']);
    assert.match(login.stderr, /could not log in as admin: HTTP 401 INVALID_AUTH/);
    const unknown = await runCli(['ext-jwt', 'check', '--controller', ctl.baseUrl, '--signer', 'nope', '--token', token, ...adminLogin, '--ca', ctl.pki.caBundle]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /the controller refused the check: HTTP 404 NOT_FOUND/);
  });

  it('exits 2 on a wrong command line', async () => {
    assert.equal((await runCli(['ext-jwt', 'check', '--controller', ctl.baseUrl, '--signer', signerId], { SVC_ADMIN_USER: '', SVC_ADMIN_PASSWORD: '' })).code, 2);
    assert.equal((await runCli(['ext-jwt', 'check', '--controller', 'ctl:1280', '--signer', 's', '--token', 't', ...adminLogin])).code, 2);
  });
});
