/**
 * Legacy partial authentication (spec: Legacy API session states, rule 6; issue 5): a login of an identity with
 * verified TOTP, or under a policy requiring TOTP, returns a session with the MFA auth query; until it is answered
 * at authenticate/mfa only that, MFA enrollment start and reading the session are allowed, then the same token
 * continues fully authenticated.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createAuthPolicy, createIdentity } from '../helpers/fixtures.js';
import { totpCode, totpTestClock, wrongTotpCode } from '../helpers/totp.js';

const CLIENT = '/edge/client/v1';
const STEP = 30_000;

describe(`legacy sessions with TOTP (${testDialect})`, () => {
  const clock = totpTestClock();
  let ctl: TestController;
  let totpPolicy: string;
  before(async () => {
    ctl = await startTestController({ clock });
    totpPolicy = await createAuthPolicy(ctl.running.database, (body) => (body.secondary.requireTotp = true));
  });
  after(async () => ctl.close());

  const login = (name: string, api = 'client') =>
    ctl.fetch(`/edge/${api}/v1/authenticate?method=password`, { method: 'POST', body: { username: name, password: `${name}-password` } });
  const call = (token: string, method: string, path: string, body?: unknown, api = CLIENT) =>
    ctl.fetch(`${api}${path}`, { method, headers: { 'svc-session': token }, ...(body === undefined ? {} : { body: body as object }) });
  const nextCode = (url: string) => {
    clock.advance(STEP);
    return totpCode(url, clock.now());
  };
  const mfaQuery = (api = CLIENT) => ({ typeId: 'MFA', format: 'alphaNumeric', httpMethod: 'POST', httpUrl: `${api}/authenticate/mfa`, minLength: 6, maxLength: 6, provider: 'svc' });

  /** An identity with verified TOTP (enrolled through a full session before this test's login). */
  async function enrolledIdentity(name: string) {
    await createIdentity(ctl.running.database, { name, username: name, password: `${name}-password` });
    const token = String((await login(name)).headers['svc-session']);
    const started = await call(token, 'POST', '/current-identity/mfa');
    assert.equal(started.status, 201, started.text);
    const { provisioningUrl, recoveryCodes } = started.json().data;
    assert.equal((await call(token, 'POST', '/current-identity/mfa/verify', { code: nextCode(provisioningUrl) })).status, 200);
    return { provisioningUrl: provisioningUrl as string, recoveryCodes: recoveryCodes as string[] };
  }

  it('(none) -> fully authenticated: without TOTP the session has no auth queries and no totp-required header', async () => {
    await createIdentity(ctl.running.database, { name: 'plain-paul', username: 'plain-paul', password: 'plain-paul-password' });
    const res = await login('plain-paul');
    assert.equal(res.status, 200);
    assert.equal(res.headers['totp-required'], undefined);
    assert.deepEqual(res.json().data.authQueries, []);
    assert.equal(res.json().data.isMfaRequired, false);
  });

  it('(none) -> partially authenticated: an identity with verified TOTP gets the MFA auth query and totp-required', async () => {
    await enrolledIdentity('tess');
    const res = await login('tess');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['totp-required'], 'true');
    const data = res.json().data;
    assert.deepEqual(data.authQueries, [mfaQuery()]);
    assert.equal(data.isMfaRequired, true);
    assert.equal(data.isMfaComplete, false);
    const token = String(res.headers['svc-session']);
    const session = await call(token, 'GET', '/current-api-session');
    assert.equal(session.status, 200);
    assert.deepEqual(session.json().data.authQueries, [mfaQuery()]);
  });

  it('allows a partial session only MFA submit, enrollment start and reading itself (rule 6)', async () => {
    await enrolledIdentity('umar');
    const token = String((await login('umar')).headers['svc-session']);
    for (const [method, path, api] of [
      ['GET', '/current-identity', CLIENT],
      ['GET', '/current-identity/mfa', CLIENT],
      ['GET', '/current-identity/mfa/qr-code', CLIENT],
      ['DELETE', '/current-api-session', CLIENT],
      ['GET', '/current-identity/authenticators', CLIENT],
      ['GET', '/controllers', CLIENT],
      ['GET', '/current-api-session', '/edge/management/v1'],
    ] as const) {
      const res = await call(token, method, path, undefined, api);
      assert.equal(res.status, api === CLIENT || path !== '/current-api-session' ? 401 : 200, `${method} ${api}${path}: ${res.text}`);
    }
    // Enrollment start is allowed (here it answers that an enrollment already exists, not 401).
    assert.equal((await call(token, 'POST', '/current-identity/mfa')).status, 409);
    assert.equal((await call(token, 'GET', '/current-api-session')).status, 200);
  });

  it('partially -> fully authenticated: a valid code at authenticate/mfa and the same token continues; wrong codes change nothing', async () => {
    const { provisioningUrl } = await enrolledIdentity('vicky');
    const token = String((await login('vicky')).headers['svc-session']);
    for (const code of ['12345', '1234567', 'abcdef!', '', wrongTotpCode(provisioningUrl, clock.now())]) {
      const wrong = await call(token, 'POST', '/authenticate/mfa', { code });
      assert.equal(wrong.status, 400, `code ${JSON.stringify(code)}: ${wrong.text}`);
      assert.equal(wrong.json().error.code, 'MFA_INVALID_TOKEN');
    }
    assert.equal((await call(token, 'POST', '/authenticate/mfa', {})).status, 400);
    assert.equal((await call(token, 'GET', '/current-identity')).status, 401, 'still partial');
    const code = nextCode(provisioningUrl);
    const res = await call(token, 'POST', '/authenticate/mfa', { code });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json().data, {});
    assert.equal((await call(token, 'GET', '/current-identity')).status, 200);
    const session = (await call(token, 'GET', '/current-api-session')).json().data;
    assert.deepEqual(session.authQueries, []);
    assert.equal(session.isMfaRequired, true);
    assert.equal(session.isMfaComplete, true);

    // The same code on another login within its step is a replay.
    const second = String((await login('vicky')).headers['svc-session']);
    const replay = await call(second, 'POST', '/authenticate/mfa', { code });
    assert.equal(replay.status, 400);
    assert.match(replay.json().error.message, /already been used/);
    assert.equal((await call(second, 'GET', '/current-identity')).status, 401);
  });

  it('accepts a recovery code once at authenticate/mfa', async () => {
    const { recoveryCodes } = await enrolledIdentity('wanda');
    const first = String((await login('wanda')).headers['svc-session']);
    const code = (recoveryCodes[5] as string).toLowerCase();
    assert.equal((await call(first, 'POST', '/authenticate/mfa', { code })).status, 200, 'recovery codes are case-insensitive');
    assert.equal((await call(first, 'GET', '/current-identity')).status, 200);
    const second = String((await login('wanda')).headers['svc-session']);
    const reused = await call(second, 'POST', '/authenticate/mfa', { code });
    assert.equal(reused.status, 400);
    assert.equal((await call(second, 'GET', '/current-identity')).status, 401);
  });

  it('lets exactly one of two concurrent answers with the same TOTP code, or the same recovery code, through', async () => {
    const { provisioningUrl, recoveryCodes } = await enrolledIdentity('racer');
    for (const code of [nextCode(provisioningUrl), recoveryCodes[7] as string]) {
      const tokens = await Promise.all([login('racer'), login('racer')]).then((all) => all.map((res) => String(res.headers['svc-session'])));
      const answers = await Promise.all(tokens.map((token) => call(token, 'POST', '/authenticate/mfa', { code })));
      assert.deepEqual(answers.map((res) => res.status).sort(), [200, 400], `code ${code}`);
    }
  });

  it('checks at most five of many concurrent wrong codes before locking, then refuses even a valid code', async () => {
    const { provisioningUrl } = await enrolledIdentity('guesser');
    const token = String((await login('guesser')).headers['svc-session']);
    const wrong = wrongTotpCode(provisioningUrl, clock.now());
    const answers = await Promise.all(Array.from({ length: 12 }, () => call(token, 'POST', '/authenticate/mfa', { code: wrong })));
    const statuses = answers.map((res) => res.status);
    assert.ok(statuses.filter((status) => status === 400).length <= 5, statuses.join());
    assert.equal(statuses.filter((status) => status === 400 || status === 429).length, 12, statuses.join());
    const valid = await call(token, 'POST', '/authenticate/mfa', { code: nextCode(provisioningUrl) });
    assert.equal(valid.status, 429);
    assert.equal((await call(token, 'GET', '/current-identity')).status, 401);
  });

  it('makes an identity whose policy requires TOTP enroll inside its partial session, completing both with the first code', async () => {
    await createIdentity(ctl.running.database, { name: 'xena', username: 'xena', password: 'xena-password', authPolicyId: totpPolicy });
    const res = await login('xena');
    assert.equal(res.headers['totp-required'], 'true');
    assert.deepEqual(res.json().data.authQueries, [mfaQuery()]);
    const token = String(res.headers['svc-session']);
    const notEnrolled = await call(token, 'POST', '/authenticate/mfa', { code: '123456' });
    assert.equal(notEnrolled.status, 409);
    assert.equal(notEnrolled.json().error.code, 'MFA_NOT_ENROLLED');
    const start = await call(token, 'POST', '/current-identity/mfa');
    assert.equal(start.status, 201, start.text);
    const { provisioningUrl, recoveryCodes } = start.json().data;
    // A recovery code cannot complete an enrollment that was never verified.
    assert.equal((await call(token, 'POST', '/authenticate/mfa', { code: recoveryCodes[0] })).status, 400);
    const done = await call(token, 'POST', '/authenticate/mfa', { code: nextCode(provisioningUrl) });
    assert.equal(done.status, 200, done.text);
    assert.equal((await call(token, 'GET', '/current-identity')).status, 200);
    assert.equal((await call(token, 'GET', '/current-identity/mfa')).json().data.isVerified, true);
  });

  it('answers on the management API too, with its own submit path', async () => {
    const { provisioningUrl } = await enrolledIdentity('yara');
    const res = await login('yara', 'management');
    const token = String(res.headers['svc-session']);
    assert.deepEqual(res.json().data.authQueries, [mfaQuery('/edge/management/v1')]);
    const done = await call(token, 'POST', '/authenticate/mfa', { code: nextCode(provisioningUrl) }, '/edge/management/v1');
    assert.equal(done.status, 200, done.text);
    assert.deepEqual((await call(token, 'GET', '/current-api-session', undefined, '/edge/management/v1')).json().data.authQueries, []);
  });

  it('lets an identity whose MFA an administrator removed log in without TOTP again', async () => {
    await enrolledIdentity('zedd');
    const identityId = (await login('zedd')).json().data.identityId;
    const adminToken = await ctl.adminToken();
    const removed = await ctl.fetch(`/edge/management/v1/identities/${identityId}/mfa`, { method: 'DELETE', headers: { 'svc-session': adminToken } });
    assert.equal(removed.status, 200);
    const res = await login('zedd');
    assert.deepEqual(res.json().data.authQueries, []);
    assert.equal(res.headers['totp-required'], undefined);
  });
});
