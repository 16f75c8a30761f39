/**
 * Password authentication of the legacy flow and the session it yields: token in body and header, session
 * readable, logout ends it, wrong credentials change nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';

describe(`legacy password authentication (${testDialect})`, () => {
  let ctl: TestController;
  before(async () => {
    ctl = await startTestController();
    await ctl.adminToken(); // creates the default admin `admin` / `admin-password`
  });
  after(async () => ctl.close());

  const login = (body: object, api = 'client') =>
    ctl.fetch(`/edge/${api}/v1/authenticate?method=password`, { method: 'POST', body });

  it('returns an API session whose token works in the svc-session header', async () => {
    const res = await login({ username: 'admin', password: 'admin-password' });
    assert.equal(res.status, 200);
    const { data } = res.json();
    assert.equal(res.headers['svc-session'], data.token);
    assert.equal(data.identity.name, 'admin');
    assert.deepEqual(data.authQueries, []);
    assert.equal(data.expirationSeconds, 1800);
    const current = await ctl.fetch('/edge/client/v1/current-api-session', { headers: { 'svc-session': data.token } });
    assert.equal(current.status, 200);
    assert.equal(current.json().data.id, data.id);
    assert.equal(current.headers['expiration-seconds'], '1800');
    // The store keeps only the token's hash: a read shows the token the request presented (reference: token is
    // required on every API session view), never one it could not have sent.
    assert.equal(current.json().data.token, data.token);
  });

  it('answers the management API with the same contract', async () => {
    const res = await login({ username: 'admin', password: 'admin-password' }, 'management');
    assert.equal(res.status, 200);
    const controllers = await ctl.fetch('/edge/management/v1/controllers', { headers: { 'svc-session': res.json().data.token } });
    assert.equal(controllers.status, 200);
  });

  it('refuses a wrong password or unknown user with 401 INVALID_AUTH and opens no session', async () => {
    for (const body of [{ username: 'admin', password: 'wrong-password' }, { username: 'nobody', password: 'admin-password' }]) {
      const res = await login(body);
      assert.equal(res.status, 401);
      assert.equal(res.json().error.code, 'INVALID_AUTH');
      assert.equal(res.headers['svc-session'], undefined);
    }
  });

  it('refuses method password without credentials, naming the missing field', async () => {
    const res = await login({ username: 'admin' });
    assert.equal(res.status, 400);
    assert.equal(res.json().error.cause.field, 'password');
  });

  it('refuses an unknown method with 400 naming the method parameter', async () => {
    const res = await ctl.fetch('/edge/client/v1/authenticate?method=kerberos', { method: 'POST' });
    assert.equal(res.status, 400);
    const { error } = res.json();
    assert.equal(error.code, 'COULD_NOT_VALIDATE');
    assert.match(JSON.stringify(error.cause), /method/);
  });

  it('refuses method ext-jwt without a Bearer token with 401 in realm svc-primary-ext-jwt, error missing', async () => {
    const res = await ctl.fetch('/edge/client/v1/authenticate?method=ext-jwt', { method: 'POST' });
    assert.equal(res.status, 401);
    assert.match(res.headerValues('www-authenticate').join(), /realm="svc-primary-ext-jwt" error="missing"/);
  });

  it('refuses method cert without a client certificate with 401 INVALID_AUTH', async () => {
    const res = await ctl.fetch('/edge/client/v1/authenticate?method=cert', { method: 'POST' });
    assert.equal(res.status, 401);
    assert.equal(res.json().error.code, 'INVALID_AUTH');
  });

  it('ends the session on logout, after which the token is refused', async () => {
    const token = (await login({ username: 'admin', password: 'admin-password' })).json().data.token;
    const out = await ctl.fetch('/edge/client/v1/current-api-session', { method: 'DELETE', headers: { 'svc-session': token } });
    assert.equal(out.status, 200);
    assert.deepEqual(out.json(), { data: {}, meta: {} });
    const again = await ctl.fetch('/edge/client/v1/current-api-session', { headers: { 'svc-session': token } });
    assert.equal(again.status, 401);
  });

  it('stores only a hash of the session token', async () => {
    const token = (await login({ username: 'admin', password: 'admin-password' })).json().data.token;
    const rows = await ctl.running.database.db.selectFrom('api_sessions').select('token_hash').execute();
    assert.ok(rows.every((r) => r.token_hash !== token && /^[0-9a-f]{64}$/.test(r.token_hash)));
  });
});
