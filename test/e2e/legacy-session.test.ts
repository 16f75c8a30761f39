/**
 * The legacy session system beyond password login: certificate login over mutual TLS, the auth policy's
 * allowed methods and lockout, disabled identities, and the inactivity timeout with coalesced activity.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createApiSessionRepository } from '../../src/persistence/repositories/api-sessions.js';
import { createControllerPki } from '../../src/pki/index.js';
import { manualClock } from '../../src/shared/clock.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { addCertAuthenticator, createAuthPolicy, createIdentity, issueClientCertificate, updatePolicyBody } from '../helpers/fixtures.js';

const MINUTE = 60_000;

describe(`legacy sessions (${testDialect})`, () => {
  const clock = manualClock(new Date());
  let ctl: TestController;
  const foreignDir = mkdtempSync(join(tmpdir(), 'svc-foreign-pki-'));
  before(async () => {
    ctl = await startTestController({ clock });
  });
  after(async () => {
    await ctl.close();
    rmSync(foreignDir, { recursive: true, force: true });
  });

  const db = () => ctl.running.database;
  const login = (username: string, password: string) =>
    ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username, password } });
  const certLogin = (cert: string, key: string, api = 'client') =>
    ctl.fetch(`/edge/${api}/v1/authenticate?method=cert`, { method: 'POST', cert, key });
  const whoAmI = (token: string) => ctl.fetch('/edge/client/v1/current-api-session', { headers: { 'svc-session': token } });

  it('logs in by a client certificate the controller issued, on both APIs', async () => {
    const identity = await createIdentity(db(), { name: 'cert-user' });
    const cert = await issueClientCertificate(ctl.pki, identity.id, { clock });
    await addCertAuthenticator(db(), identity.id, cert.leafPem);
    for (const api of ['client', 'management']) {
      const res = await certLogin(cert.certPem, cert.keyPem, api);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json().data.identity.id, identity.id);
      assert.equal(res.json().data.authMethod, 'cert');
    }
  });

  it('refuses a certificate from another CA, even one whose fingerprint is registered', async () => {
    const foreign = await createControllerPki(foreignDir, { hosts: ['localhost'] });
    const identity = await createIdentity(db(), { name: 'foreign-user' });
    const cert = await issueClientCertificate(foreign, identity.id, { clock });
    await addCertAuthenticator(db(), identity.id, cert.leafPem);
    const res = await certLogin(cert.certPem, cert.keyPem);
    assert.equal(res.status, 401);
    assert.equal(res.json().error.code, 'INVALID_AUTH');
  });

  it('refuses an unregistered certificate from its own CA', async () => {
    const cert = await issueClientCertificate(ctl.pki, 'nobody', { clock });
    assert.equal((await certLogin(cert.certPem, cert.keyPem)).status, 401);
  });

  it('accepts an expired certificate only while the policy allows expired certificates', async () => {
    const identity = await createIdentity(db(), { name: 'expired-cert-user' });
    // TLS checks validity against real time, and certificate times have one-second resolution.
    const cert = await issueClientCertificate(ctl.pki, identity.id, { validityMs: 1 });
    await addCertAuthenticator(db(), identity.id, cert.leafPem);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.equal((await certLogin(cert.certPem, cert.keyPem)).status, 200, 'the default policy allows expired certificates');
    await updatePolicyBody(db(), 'default', (body) => (body.primary.cert.allowExpiredCerts = false));
    try {
      assert.equal((await certLogin(cert.certPem, cert.keyPem)).status, 401);
    } finally {
      await updatePolicyBody(db(), 'default', (body) => (body.primary.cert.allowExpiredCerts = true));
    }
  });

  it('refuses a method the identity policy disallows, with the same answer as a wrong password', async () => {
    const noUpdb = await createAuthPolicy(db(), (body) => {
      body.primary.cert.allowExpiredCerts = true;
      body.primary.updb.allowed = false;
    });
    await createIdentity(db(), { name: 'cert-only', password: 'right-password', authPolicyId: noUpdb });
    const res = await login('cert-only', 'right-password');
    assert.equal(res.status, 401);
    assert.deepEqual(res.json().error.code, 'INVALID_AUTH');
  });

  it('locks an identity out after the policy number of failed passwords, for the policy duration', async () => {
    const strict = await createAuthPolicy(db(), (body) => Object.assign(body.primary.updb, { minPasswordLength: 5, maxAttempts: 3, lockoutDurationMinutes: 5 }));
    await createIdentity(db(), { name: 'guessed', password: 'right-password', authPolicyId: strict });
    assert.equal((await login('guessed', 'wrong-1')).status, 401);
    assert.equal((await login('guessed', 'right-password')).status, 200, 'a success resets the count');
    for (const attempt of ['wrong-1', 'wrong-2', 'wrong-3']) assert.equal((await login('guessed', attempt)).status, 401);
    const locked = await login('guessed', 'right-password');
    assert.equal(locked.status, 401, 'locked out even with the right password');
    assert.equal(locked.json().error.code, 'INVALID_AUTH');
    clock.advance(5 * MINUTE + 1000);
    assert.equal((await login('guessed', 'right-password')).status, 200, 'the lockout runs out');
  });

  it('stops the live sessions of a disabled identity and resumes them when it is enabled', async () => {
    const identity = await createIdentity(db(), { name: 'to-disable', password: 'right-password' });
    const token = (await login('to-disable', 'right-password')).json().data.token;
    // Through the management API, as an operator does: the change reaches the copies kept in memory at commit.
    const admin = { 'svc-session': await ctl.adminToken() };
    const manage = (action: 'disable' | 'enable') =>
      ctl.fetch(`/edge/management/v1/identities/${identity.id}/${action}`, { method: 'POST', headers: admin, body: action === 'disable' ? { durationMinutes: 0 } : {} });
    assert.equal((await whoAmI(token)).status, 200);
    assert.equal((await manage('disable')).status, 200);
    const refused = await whoAmI(token);
    assert.equal(refused.status, 401);
    assert.deepEqual(refused.headerValues('www-authenticate'), ['svc-session realm="svc-session" error="invalid" error_description="the identity is disabled"']);
    assert.equal((await login('to-disable', 'right-password')).status, 401, 'and it cannot log in');
    assert.equal((await manage('enable')).status, 200);
    assert.equal((await whoAmI(token)).status, 200);
  });

  it('ends a session after 30 minutes without activity, and any activity resets the clock', async () => {
    await createIdentity(db(), { name: 'idle-user', password: 'right-password' });
    const token = (await login('idle-user', 'right-password')).json().data.token;
    clock.advance(20 * MINUTE);
    const active = await whoAmI(token);
    assert.equal(active.status, 200);
    assert.equal(active.headers['expiration-seconds'], '1800', 'activity resets the timeout');
    clock.advance(20 * MINUTE);
    assert.equal((await whoAmI(token)).status, 200, '40 minutes after login but 20 after the last call');
    clock.advance(30 * MINUTE + 1000);
    const expired = await whoAmI(token);
    assert.equal(expired.status, 401);
    assert.deepEqual(expired.headerValues('www-authenticate'), ['svc-session realm="svc-session" error="expired" error_description="token expired"']);
    assert.equal((await whoAmI(token)).status, 401, 'an expired session stays ended');
  });

  it('measures inactivity from the latest activity any controller wrote, though this one keeps the session in memory', async () => {
    await createIdentity(db(), { name: 'roaming-user', password: 'right-password' });
    const { id, token } = (await login('roaming-user', 'right-password')).json().data;
    assert.equal((await whoAmI(token)).status, 200, 'used here, so kept in memory here');
    clock.advance(20 * MINUTE);
    // Another controller on the store saw the session now and wrote it, as its activity flush does.
    await createApiSessionRepository(db()).touchMany([{ id, at: clock.now() }]);
    clock.advance(20 * MINUTE);
    assert.equal((await whoAmI(token)).status, 200, '40 minutes since its last use here, 20 since its last use anywhere');
    clock.advance(31 * MINUTE);
    assert.equal((await whoAmI(token)).status, 401, 'and it ends once idle everywhere for longer than the timeout');
  });

  it('does not write to the store on every authenticated request', async () => {
    await createIdentity(db(), { name: 'busy-user', password: 'right-password' });
    const { id, token } = (await login('busy-user', 'right-password')).json().data;
    const stored = async () => (await db().db.selectFrom('api_sessions').select('last_activity_at').where('id', '=', id).executeTakeFirstOrThrow()).last_activity_at;
    const before = await stored();
    clock.advance(MINUTE);
    for (let i = 0; i < 10; i++) assert.equal((await whoAmI(token)).status, 200);
    assert.equal(await stored(), before, 'activity is kept in memory and written in batches');
  });
});
