/**
 * The secondary-factor states of an OIDC authorization request (spec: OIDC authorization request states): a primary
 * login whose auth policy requires TOTP or a secondary external JWT leaves the request partially authenticated,
 * answers 200 with the auth queries instead of a code, and no code can be obtained for it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type * as client from 'openid-client';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createAuthPolicy, createIdentity } from '../helpers/fixtures.js';
import { discoverClient, followCallback, postForm, postLogin, REDIRECT_URI, startLogin } from '../helpers/oidc.js';
import { authRequestKey } from '../../src/services/oidc-provider/oidc-auth-request-seal.js';

describe(`OIDC login with secondary factors outstanding (${testDialect})`, () => {
  let ctl: TestController;
  let config: client.Configuration;
  let issuer: string;
  before(async () => {
    ctl = await startTestController();
    config = await discoverClient(ctl);
    issuer = `${ctl.baseUrl}/oidc`;
    const database = ctl.running.database;
    const totpPolicy = await createAuthPolicy(database, (body) => (body.secondary.requireTotp = true));
    const extJwtPolicy = await createAuthPolicy(database, (body) => (body.secondary.requireExtJwt = 'signer-1'));
    await createIdentity(database, { name: 'carol', username: 'carol', password: 'carol-password', authPolicyId: totpPolicy });
    await createIdentity(database, { name: 'dave', username: 'dave', password: 'dave-password', authPolicyId: extJwtPolicy });
    await createIdentity(database, { name: 'erin', username: 'erin', password: 'erin-password' });
  });
  after(async () => ctl.close());

  const totpQuery = () => ({ typeId: 'MFA', format: 'alphaNumeric', httpMethod: 'POST', httpUrl: `${issuer}/login/totp`, minLength: 6, maxLength: 6, provider: 'svc' });
  const storedRequest = (id: string) => ctl.running.database.db.selectFrom('oidc_auth_requests').selectAll().where('id', '=', authRequestKey(id)).executeTakeFirstOrThrow();

  it('answers a password login under a TOTP-requiring policy with 200, the TOTP auth query and totp-required, without a redirect', async () => {
    const { authRequestId } = await startLogin(ctl, config);
    const res = await postLogin(ctl, authRequestId, 'carol', 'carol-password');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.location, undefined);
    assert.equal(res.headers['totp-required'], 'true');
    assert.deepEqual(res.json().authQueries, [totpQuery()]);
    const stored = await storedRequest(authRequestId);
    assert.equal(stored.status, 'partially_authenticated');
    assert.equal(stored.code_hash, null);
  });

  it('returns the same auth queries from GET /oidc/login/auth-queries and on the login URL', async () => {
    const { authRequestId } = await startLogin(ctl, config);
    const before = await ctl.fetch(`/oidc/login/auth-queries?id=${authRequestId}`);
    assert.equal(before.status, 200);
    assert.deepEqual(before.json().authQueries, []);
    await postLogin(ctl, authRequestId, 'carol', 'carol-password');
    const queries = await ctl.fetch(`/oidc/login/auth-queries?id=${authRequestId}`);
    assert.equal(queries.status, 200);
    assert.equal(queries.headers['totp-required'], 'true');
    assert.deepEqual(queries.json().authQueries, [totpQuery()]);
    const loginUrl = await ctl.fetch(`/oidc/login/username?authRequestID=${authRequestId}`);
    assert.equal(loginUrl.status, 200);
    assert.deepEqual(loginUrl.json().authQueries, [totpQuery()]);
    // A browser is shown the TOTP form instead.
    const loginPage = await ctl.fetch(`/oidc/login/username?authRequestID=${authRequestId}`, { headers: { accept: 'text/html' } });
    assert.equal(loginPage.status, 200);
    assert.match(loginPage.text, /action="\/oidc\/login\/totp"/);
  });

  it('keeps the request partial on a second primary login, refuses wrong credentials, and leaves it to its identity when another logs in', async () => {
    const { authRequestId } = await startLogin(ctl, config);
    await postLogin(ctl, authRequestId, 'carol', 'carol-password');
    const again = await postLogin(ctl, authRequestId, 'carol', 'carol-password');
    assert.equal(again.status, 200);
    assert.deepEqual(again.json().authQueries, [totpQuery()]);
    const wrong = await postLogin(ctl, authRequestId, 'carol', 'wrong-password');
    assert.equal(wrong.status, 401);
    // erin owes no factor: her login on the same id is a login of her own (decision 0046), carol's request unchanged.
    const other = await postLogin(ctl, authRequestId, 'erin', 'erin-password');
    assert.equal(other.status, 302, other.text);
    assert.doesNotMatch(String(other.headers.location), new RegExp(encodeURIComponent(authRequestId)));
    const stored = await storedRequest(authRequestId);
    assert.equal(stored.status, 'partially_authenticated');
    assert.equal(stored.code_hash, null);
  });

  it('lists a required secondary external JWT signer without totp-required', async () => {
    const { authRequestId } = await startLogin(ctl, config);
    const res = await postLogin(ctl, authRequestId, 'dave', 'dave-password');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['totp-required'], undefined);
    assert.deepEqual(res.json().authQueries, [{ typeId: 'EXT-JWT', id: 'signer-1', httpMethod: 'POST', httpUrl: `${issuer}/login/ext-jwt`, provider: 'svc' }]);
  });

  it('gives no code for a partially authenticated request: the token endpoint finds none', async () => {
    const started = await startLogin(ctl, config);
    await postLogin(ctl, started.authRequestId, 'carol', 'carol-password');
    const stored = await storedRequest(started.authRequestId);
    assert.equal(stored.code_hash, null);
    assert.equal(stored.code_expires_at, null);
    for (const code of ['', started.authRequestId, stored.api_session_id]) {
      const res = await postForm(ctl, '/oidc/token', { grant_type: 'authorization_code', client_id: 'svc', redirect_uri: REDIRECT_URI, code, code_verifier: started.verifier });
      assert.equal(res.status, 400);
      assert.match(res.json().error, /invalid_grant|invalid_request/);
    }
  });

  it('still redirects with a code when the policy requires nothing more', async () => {
    const { authRequestId } = await startLogin(ctl, config);
    const res = await postLogin(ctl, authRequestId, 'erin', 'erin-password');
    assert.equal(res.status, 302);
    assert.ok(new URL(String(await followCallback(ctl, res.headers.location))).searchParams.get('code'));
  });
});
