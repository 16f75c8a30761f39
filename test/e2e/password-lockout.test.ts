/**
 * Password lockout is its own state (issue 12, points 2, 3 and 6; decision 0015): it refuses password checks only,
 * for a bounded time, counts every check (logins and `currentPassword`) before it is made, cannot be turned against
 * the default admin from another address, ends when an administrator enables the identity, and leaves a trace.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock } from '../../src/shared/clock.js';
import { createIdentityRepository } from '../../src/persistence/repositories/identities.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { addCertAuthenticator, createAuthPolicy, createIdentity, issueClientCertificate, updateIdentityRow } from '../helpers/fixtures.js';
import { managementClient } from '../helpers/management.js';
import { totpCode, wrongTotpCode } from '../helpers/totp.js';

const MINUTE = 60_000;

describe(`password lockout (${testDialect})`, () => {
  const clock = manualClock(new Date());
  const logLines: string[] = [];
  let ctl: TestController;
  before(async () => {
    ctl = await startTestController({ clock, logLines });
  });
  after(() => ctl.close());

  const db = () => ctl.running.database;
  const login = (username: string, password: string, localAddress?: string) =>
    ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username, password }, ...(localAddress ? { localAddress } : {}) });
  const events = (name: string) => logLines.map((line) => JSON.parse(line)).filter((line) => line.securityEvent === name);
  const policy = (maxAttempts: number, lockoutDurationMinutes: number) =>
    createAuthPolicy(db(), (body) => Object.assign(body.primary.updb, { maxAttempts, lockoutDurationMinutes }));
  /** A management client on a new admin session (the manual clock outruns any one session). */
  const adminClient = async () => {
    await ctl.adminToken();
    const adminId = (await createIdentityRepository(db()).findDefaultAdmin())?.id as string;
    return { adminId, admin: managementClient(ctl, (await ctl.running.services.apiSessions.start(adminId, 'password', '127.0.0.1')).token) };
  };
  const auditOf = async (identityId: string, action: string) => {
    const { admin } = await adminClient();
    const res = await admin.get(`/audit-log?filter=${encodeURIComponent(`entityId = "${identityId}" and action = "${action}"`)}`);
    assert.equal(res.status, 200, res.text);
    return res.json().data as Array<{ details: Record<string, unknown>; actorName: string }>;
  };

  it('refuses only new password logins: live sessions, certificate logins and the identity itself are untouched', async () => {
    const user = await createIdentity(db(), { name: 'locked-user', password: 'right-password', authPolicyId: await policy(3, 5) });
    const cert = await issueClientCertificate(ctl.pki, user.id, { clock });
    await addCertAuthenticator(db(), user.id, cert.leafPem);
    const token = (await login('locked-user', 'right-password')).json().data.token as string;

    for (const guess of ['wrong-1', 'wrong-2', 'wrong-3']) assert.equal((await login('locked-user', guess)).status, 401);
    const refused = await login('locked-user', 'right-password');
    assert.equal(refused.status, 401, 'locked out even with the right password');
    assert.equal(refused.json().error.code, 'INVALID_AUTH', 'the same answer as a wrong password: nothing tells the lockout apart');

    assert.equal((await ctl.fetch('/edge/client/v1/current-identity', { headers: { 'svc-session': token } })).status, 200, 'the live session keeps working');
    assert.equal((await ctl.fetch('/edge/client/v1/authenticate?method=cert', { method: 'POST', cert: cert.certPem, key: cert.keyPem })).status, 200, 'certificate logins are not locked');
    const detail = await (await adminClient()).admin.get(`/identities/${user.id}`);
    assert.equal(detail.json().data.disabled, false, 'a lockout never disables the identity');

    clock.advance(5 * MINUTE + 1000);
    assert.equal((await login('locked-user', 'right-password')).status, 200, 'the lockout runs out after the policy duration');
  });

  it('counts guesses sent together before checking them: a burst past the limit starts one lockout', async () => {
    const user = await createIdentity(db(), { name: 'burst-user', password: 'right-password', authPolicyId: await policy(3, 5) });
    const before = events('password-lockout').length;
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => login('burst-user', `wrong-${i}`)));
    assert.deepEqual(answers.map((res) => res.status), Array(8).fill(401));
    assert.equal((await login('burst-user', 'right-password')).status, 401, 'the right password after the burst is refused');
    assert.equal(events('password-lockout').length - before, 1, 'exactly one lockout is reported');
    const audited = await auditOf(user.id, 'lockout');
    assert.equal(audited.length, 1);
    assert.equal(audited[0]?.details.method, 'updb');
    assert.equal(audited[0]?.actorName, 'system');
  });

  it('reads lockoutDurationMinutes 0 as the longest lockout, a day, and enable ends a lockout at once', async () => {
    const user = await createIdentity(db(), { name: 'day-user', password: 'right-password', authPolicyId: await policy(2, 0) });
    for (const guess of ['wrong-1', 'wrong-2']) assert.equal((await login('day-user', guess)).status, 401);
    clock.advance(23 * 60 * MINUTE);
    assert.equal((await login('day-user', 'right-password')).status, 401, 'still locked after 23 hours');
    clock.advance(60 * MINUTE + 1000);
    const afterADay = await login('day-user', 'right-password');
    assert.equal(afterADay.status, 200, `never longer than a day: ${JSON.stringify(events('login-refused').at(-1))}`);

    for (const guess of ['wrong-1', 'wrong-2']) assert.equal((await login('day-user', guess)).status, 401);
    assert.equal((await login('day-user', 'right-password')).status, 401);
    const { admin } = await adminClient();
    assert.equal((await admin.post(`/identities/${user.id}/enable`)).status, 200);
    assert.equal((await login('day-user', 'right-password')).status, 200, 'enabled: the lockout is gone');
    const enabled = await auditOf(user.id, 'enable');
    assert.equal(enabled[0]?.details.clearedLockouts, 1);
  });

  it('counts a wrong currentPassword of an authenticator change like a failed login', async () => {
    await createIdentity(db(), { name: 'changer', password: 'right-password', authPolicyId: await policy(3, 5) });
    const token = (await login('changer', 'right-password')).json().data.token as string;
    const headers = { 'svc-session': token };
    const [authenticator] = (await ctl.fetch('/edge/client/v1/current-identity/authenticators', { headers })).json().data;
    const change = (currentPassword: string) =>
      ctl.fetch(`/edge/client/v1/current-identity/authenticators/${authenticator.id}`, {
        method: 'PUT',
        headers,
        body: { username: 'changer', password: 'new-password', currentPassword },
      });

    for (const guess of ['wrong-1', 'wrong-2']) {
      const res = await change(guess);
      assert.equal(res.status, 401);
      assert.equal(res.json().error.cause.field, 'currentPassword');
    }
    const third = await change('wrong-3');
    assert.equal(third.status, 429, 'the guess that reaches the limit starts the lockout');
    assert.equal(third.json().error.code, 'PASSWORD_LOCKED');
    assert.ok(Number(third.headers['retry-after']) > 0 && Number(third.headers['retry-after']) <= 300);
    assert.equal((await change('right-password')).status, 429, 'the right current password is refused while locked');
    assert.equal((await login('changer', 'right-password')).status, 401, 'and so are password logins');
    assert.equal((await login('changer', 'new-password')).status, 401, 'nothing was changed');
    assert.equal((await ctl.fetch('/edge/client/v1/current-identity', { headers })).status, 200, 'the session itself goes on');
  });

  it("locks out the default admin's password only for the address the wrong guesses came from", async () => {
    const { admin, adminId } = await adminClient();
    await updateIdentityRow(db(), adminId, { auth_policy_id: await policy(3, 60) });

    for (const guess of ['wrong-1', 'wrong-2', 'wrong-3']) assert.equal((await login('admin', guess, '127.0.0.2')).status, 401);
    assert.equal((await login('admin', 'admin-password', '127.0.0.2')).status, 401, 'the guessing address is locked out');
    assert.equal((await login('admin', 'admin-password', '127.0.0.1')).status, 200, 'the operator at another address is not');
    const lockout = events('password-lockout').find((event) => event.identityId === adminId);
    assert.equal(lockout?.scope, '127.0.0.2');
    await admin.put(`/identities/${adminId}`, { name: 'admin', type: 'Default', isAdmin: true, authPolicyId: 'default' });
  });

  it('logs every refused login with its method and reason, and never the password', async () => {
    await createIdentity(db(), { name: 'logged-user', password: 'right-password' });
    await login('logged-user', 'secret-guess-1234');
    await login('nobody-at-all', 'secret-guess-5678');
    const refusals = events('login-refused').slice(-2);
    assert.deepEqual(
      refusals.map((event) => [event.method, event.reason]),
      [
        ['password', 'wrong password'],
        ['password', 'no password authenticator has this username'],
      ],
    );
    assert.ok(refusals[0].identityId, 'the identity is named when one was found');
    assert.ok(!logLines.some((line) => line.includes('secret-guess')), 'no log line holds a presented password');
  });

  it('leaves a log line and an audit entry when wrong TOTP codes lock MFA', async () => {
    const user = await createIdentity(db(), { name: 'totp-guesser', password: 'right-password' });
    const headers = { 'svc-session': (await login('totp-guesser', 'right-password')).json().data.token as string };
    const started = await ctl.fetch('/edge/client/v1/current-identity/mfa', { method: 'POST', headers });
    const url = started.json().data.provisioningUrl as string;
    assert.equal((await ctl.fetch('/edge/client/v1/current-identity/mfa/verify', { method: 'POST', headers, body: { code: totpCode(url, clock.now()) } })).status, 200);
    for (let i = 0; i < 5; i++) {
      const wrong = await ctl.fetch('/edge/client/v1/current-identity/mfa/recovery-codes', { headers: { ...headers, 'mfa-validation-code': wrongTotpCode(url, clock.now()) } });
      assert.equal(wrong.status, 400);
    }
    const logged = events('totp-lockout').filter((event) => event.identityId === user.id);
    assert.equal(logged.length, 1);
    assert.equal(logged[0].identityName, 'totp-guesser');
    const audited = await auditOf(user.id, 'lockout');
    assert.equal(audited[0]?.details.method, 'totp');
  });

  it('logs a change of an external JWT signer as a trust change, with who made it', async () => {
    const { admin } = await adminClient();
    const created = await admin.post('/external-jwt-signers', { name: 'trusted-idp', issuer: 'https://idp.example.test', audience: 'svc', enabled: true, jwksEndpoint: 'https://idp.example.test/jwks' });
    assert.equal(created.status, 201, created.text);
    const id = created.json().data.id as string;
    assert.equal((await admin.del(`/external-jwt-signers/${id}`)).status, 200);
    const changes = events('trust-changed').filter((event) => event.entityId === id);
    assert.deepEqual(changes.map((event) => [event.action, event.actorName, event.entityType]), [
      ['create', 'admin', 'external-jwt-signer'],
      ['delete', 'admin', 'external-jwt-signer'],
    ]);
  });
});
