/**
 * The session identity's own detail and authenticators: reachable only for itself, changeable only with the
 * current password, within the auth policy's password rules.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { addCertAuthenticator, createAuthPolicy, createIdentity, issueClientCertificate, updatePolicyBody } from '../helpers/fixtures.js';
import { totpCode } from '../helpers/totp.js';

describe(`the current identity (${testDialect})`, () => {
  let ctl: TestController;
  let token: string;
  let otherAuthenticatorId: string;
  before(async () => {
    ctl = await startTestController();
    await createIdentity(ctl.running.database, { name: 'bobby', password: 'bob-password' });
    const other = await createIdentity(ctl.running.database, { name: 'carol', password: 'carol-password' });
    otherAuthenticatorId = (await ctl.running.database.db.selectFrom('authenticators').select('id').where('identity_id', '=', other.id).executeTakeFirstOrThrow()).id;
    token = await loginAs('bobby', 'bob-password');
  });
  after(async () => ctl.close());

  async function loginAs(username: string, password: string): Promise<string> {
    const res = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username, password } });
    assert.equal(res.status, 200, res.text);
    return res.json().data.token;
  }
  const call = (path: string, options: { method?: string; body?: object } = {}, session = token) =>
    ctl.fetch(`/edge/client/v1${path}`, { ...options, headers: { 'svc-session': session } });
  const ownId = async () => (await call('/current-identity/authenticators')).json().data[0].id as string;

  it('shows every change to the identity at once, though its detail is kept in memory', async () => {
    const dora = await createIdentity(ctl.running.database, { name: 'dora', password: 'dora-password' });
    const session = await loginAs('dora', 'dora-password');
    const me = async () => {
      const res = await call('/current-identity', {}, session);
      assert.equal(res.status, 200, res.text);
      return res.json().data;
    };
    const admin = { 'svc-session': await ctl.adminToken() };
    const manage = async (method: string, path: string, body?: object) => {
      const res = await ctl.fetch(`/edge/management/v1${path}`, { method, headers: admin, ...(body ? { body } : {}) });
      assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
      return res.json().data;
    };
    assert.equal((await me()).isMfaEnabled, false);
    assert.equal((await me()).hasApiSession, true);

    await manage('PATCH', `/identities/${dora.id}`, { roleAttributes: ['kept-in-memory'] });
    assert.deepEqual((await me()).roleAttributes, ['kept-in-memory'], 'its own attributes');

    const policy = await createAuthPolicy(ctl.running.database);
    await manage('PATCH', `/identities/${dora.id}`, { authPolicyId: policy });
    await manage('PATCH', `/auth-policies/${policy}`, { name: 'renamed-for-dora' });
    assert.equal((await me()).authPolicy.name, 'renamed-for-dora', 'the name of its auth policy');

    const enrollment = await manage('POST', '/enrollments', { identityId: dora.id, method: 'ott', expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    assert.equal((await me()).enrollment.ott.id, enrollment.id, 'a new enrollment');
    await manage('DELETE', `/enrollments/${enrollment.id}`);
    assert.equal((await me()).enrollment.ott, undefined, 'a deleted enrollment');

    const started = await call('/current-identity/mfa', { method: 'POST' }, session);
    assert.equal(started.status, 201, started.text);
    const verified = await call('/current-identity/mfa/verify', { method: 'POST', body: { code: totpCode(started.json().data.provisioningUrl, new Date()) } }, session);
    assert.equal(verified.status, 200, verified.text);
    assert.equal((await me()).isMfaEnabled, true, 'a verified MFA enrollment');

    const [authenticator] = await manage('GET', `/identities/${dora.id}/authenticators`);
    await manage('DELETE', `/authenticators/${authenticator.id}`);
    assert.deepEqual((await me()).authenticators, {}, 'a deleted authenticator');
  });

  it('shows the session identity with its authenticators and never a password hash', async () => {
    const res = await call('/current-identity');
    assert.equal(res.status, 200);
    assert.equal(res.json().data.name, 'bobby');
    assert.equal(res.json().data.authenticators.updb.username, 'bobby');
    assert.doesNotMatch(res.text, /argon2|password_hash|passwordHash/);
  });

  it('lists and reads only its own authenticators; another identity\'s is not found', async () => {
    const list = (await call('/current-identity/authenticators')).json();
    assert.equal(list.meta.pagination.totalCount, 1);
    assert.equal((await call(`/current-identity/authenticators/${await ownId()}`)).status, 200);
    const foreign = await call(`/current-identity/authenticators/${otherAuthenticatorId}`);
    assert.equal(foreign.status, 404);
    const patchForeign = await call(`/current-identity/authenticators/${otherAuthenticatorId}`, { method: 'PATCH', body: { password: 'hijacked-pw', currentPassword: 'carol-password' } });
    assert.equal(patchForeign.status, 404);
  });

  it('refuses a change with a wrong current password and changes nothing', async () => {
    const res = await call(`/current-identity/authenticators/${await ownId()}`, { method: 'PATCH', body: { password: 'new-password', currentPassword: 'not-my-password' } });
    assert.equal(res.status, 401);
    assert.equal(res.json().error.cause.field, 'currentPassword');
    assert.ok(await loginAs('bobby', 'bob-password'));
  });

  it('refuses malformed bodies naming the field', async () => {
    const id = await ownId();
    const cases: [object, string][] = [
      [{ password: 'new-password' }, 'currentPassword'],
      [{ password: 'abc', currentPassword: 'bob-password' }, 'password'],
      [{ username: 'bo', currentPassword: 'bob-password' }, 'username'],
      [{ currentPassword: 'bob-password', isAdmin: true }, 'isAdmin'],
    ];
    for (const [body, field] of cases) {
      const res = await call(`/current-identity/authenticators/${id}`, { method: 'PATCH', body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.json().error.cause.field, field);
    }
    const put = await call(`/current-identity/authenticators/${id}`, { method: 'PUT', body: { password: 'new-password', currentPassword: 'bob-password' } });
    assert.equal(put.status, 400, 'PUT needs every field');
    assert.equal(put.json().error.cause.field, 'username');
  });

  it('enforces the auth policy password rules on a new password', async () => {
    await updatePolicyBody(ctl.running.database, 'default', (body) => (body.primary.updb.requireNumberChar = true));
    try {
      const res = await call(`/current-identity/authenticators/${await ownId()}`, { method: 'PATCH', body: { password: 'no-digits-here', currentPassword: 'bob-password' } });
      assert.equal(res.status, 400);
      assert.equal(res.json().error.code, 'INVALID_PASSWORD');
      assert.match(res.json().error.message, /digit/);
    } finally {
      await updatePolicyBody(ctl.running.database, 'default', (body) => (body.primary.updb.requireNumberChar = false));
    }
  });

  it('refuses a username another identity uses', async () => {
    const res = await call(`/current-identity/authenticators/${await ownId()}`, { method: 'PATCH', body: { username: 'carol', currentPassword: 'bob-password' } });
    assert.equal(res.status, 400);
    assert.equal(res.json().error.cause.field, 'username');
  });

  it('changes username and password with the current password; the old ones stop working', async () => {
    const res = await call(`/current-identity/authenticators/${await ownId()}`, { method: 'PUT', body: { username: 'robert', password: 'robert-password', currentPassword: 'bob-password' } });
    assert.equal(res.status, 200, res.text);
    const old = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'bobby', password: 'bob-password' } });
    assert.equal(old.status, 401);
    assert.ok(await loginAs('robert', 'robert-password'));
  });

  it('answers 409 for a certificate authenticator, which has no password to change', async () => {
    const identity = await createIdentity(ctl.running.database, { name: 'david', password: 'dave-password' });
    const certId = await addCertAuthenticator(ctl.running.database, identity.id, (await issueClientCertificate(ctl.pki, identity.id)).leafPem);
    const dave = await loginAs('david', 'dave-password');
    const res = await call(`/current-identity/authenticators/${certId}`, { method: 'PATCH', body: { password: 'new-password', currentPassword: 'dave-password' } }, dave);
    assert.equal(res.status, 409);
    assert.equal(res.json().error.code, 'CAN_NOT_UPDATE_AUTHENTICATOR');
  });
});
