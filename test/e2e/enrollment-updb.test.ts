/**
 * Username/password enrollment: the token sets the password of the username the administrator chose, under the
 * identity's auth policy password rules; afterwards the identity logs in with it. Refusals change nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { authenticatorsOf, createEnrollment, isPending } from '../helpers/enrollment.js';
import { createAuthPolicy, createIdentity } from '../helpers/fixtures.js';

const STRICT_POLICY = {
  primary: {
    cert: { allowed: true, allowExpiredCerts: true },
    updb: { allowed: true, minPasswordLength: 12, requireSpecialChar: true, requireNumberChar: true, requireMixedCase: true, maxAttempts: 0, lockoutDurationMinutes: 0 },
    extJwt: { allowed: true, allowedSigners: [] },
  },
  secondary: { requireTotp: false, requireExtJwt: null },
};

describe(`updb enrollment (${testDialect})`, () => {
  let ctl: TestController;
  let strict: string;
  before(async () => {
    ctl = await startTestController();
    strict = await createAuthPolicy(ctl.running.database, (body) => Object.assign(body, structuredClone(STRICT_POLICY)));
  });
  after(async () => ctl.close());

  const db = () => ctl.running.database;
  const enrollUpdb = (token: string, body: unknown, path = '/enroll/updb?', headers: Record<string, string> = {}) =>
    ctl.fetch(`/edge/client/v1${path}token=${token}`, { method: 'POST', headers, body: body as object });
  const login = (username: string, password: string) =>
    ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username, password } });
  const newUpdb = async (username: string, authPolicyId?: string) => {
    const identity = await createIdentity(db(), { name: username, ...(authPolicyId ? { authPolicyId } : {}) });
    return { identity, enrollment: await createEnrollment(ctl, { identityId: identity.id, method: 'updb', username }) };
  };
  async function assertUnchanged(identityId: string, enrollmentId: string) {
    assert.equal(await isPending(ctl, enrollmentId), true, 'the enrollment is still pending');
    assert.deepEqual(await authenticatorsOf(ctl, identityId), [], 'no authenticator was created');
  }

  it('sets the password of the enrollment username, after which the identity logs in with it', async () => {
    const { identity, enrollment } = await newUpdb('alice');
    const res = await enrollUpdb(enrollment.token, { password: 'correct horse' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json(), { data: { username: 'alice' }, meta: {} });
    const [stored] = await authenticatorsOf(ctl, identity.id);
    assert.equal(stored?.method, 'updb');
    assert.equal(stored?.username, 'alice');
    assert.match(String(stored?.password_hash), /^\$argon2id\$/, 'only a hash is stored');
    assert.equal(await isPending(ctl, enrollment.id), false);
    const session = await login('alice', 'correct horse');
    assert.equal(session.status, 200, session.text);
    assert.equal(session.json().data.identity.id, identity.id);
    const audit = await db().db.selectFrom('audit_log').selectAll().where('entity_id', '=', enrollment.id).where('action', '=', 'enroll').execute();
    assert.equal(audit.length, 1);
    assert.equal(audit[0]?.actor_id, identity.id, 'the enrolling identity is the actor');
    assert.doesNotMatch(audit[0]?.details ?? '', /correct horse|\$argon2/, 'no secret in the trail');
  });

  it('accepts the generic /enroll?method=updb form with the enrollment username repeated', async () => {
    const { enrollment } = await newUpdb('bob-generic');
    const res = await enrollUpdb(enrollment.token, { username: 'bob-generic', password: 'bob-password' }, '/enroll?method=updb&');
    assert.equal(res.status, 200, res.text);
    assert.equal((await login('bob-generic', 'bob-password')).status, 200);
  });

  it('refuses passwords that break the identity policy with 400 INVALID_PASSWORD listing every problem, and changes nothing', async () => {
    const { identity, enrollment } = await newUpdb('carol', strict);
    const res = await enrollUpdb(enrollment.token, { password: 'short' });
    assert.equal(res.status, 400);
    const { error } = res.json();
    assert.equal(error.code, 'INVALID_PASSWORD');
    assert.equal(error.cause.field, 'password');
    for (const problem of [/at least 12 characters/, /digit/, /neither a letter nor a digit/, /lower-case and upper-case/]) assert.match(error.cause.reason, problem);
    await assertUnchanged(identity.id, enrollment.id);
    const ok = await enrollUpdb(enrollment.token, { password: 'Much-Longer-1' });
    assert.equal(ok.status, 200, ok.text);
  });

  it('applies the default policy limits (5 to 100 characters) to identities without a policy', async () => {
    const { identity, enrollment } = await newUpdb('dave');
    for (const password of ['four', 'x'.repeat(101)]) {
      const res = await enrollUpdb(enrollment.token, { password });
      assert.equal(res.status, 400);
      assert.equal(res.json().error.code, 'INVALID_PASSWORD');
    }
    await assertUnchanged(identity.id, enrollment.id);
  });

  it('refuses another username, a missing password and unknown fields with 400 COULD_NOT_VALIDATE naming the field', async () => {
    const { identity, enrollment } = await newUpdb('erin');
    const cases: Array<[unknown, string, string]> = [
      [{ username: 'mallory', password: 'erin-password' }, 'username', '/enroll/updb?'],
      [{ username: 'mallory', password: 'erin-password' }, 'username', '/enroll?method=updb&'],
      [{}, 'password', '/enroll/updb?'],
      [{}, 'password', '/enroll?method=updb&'],
      [{ password: 'erin-password', isAdmin: true }, 'isAdmin', '/enroll/updb?'],
      [{ password: 'erin-password', isAdmin: true }, 'isAdmin', '/enroll?method=updb&'],
    ];
    for (const [body, field, path] of cases) {
      const res = await enrollUpdb(enrollment.token, body, path);
      assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}`);
      assert.equal(res.json().error.code, 'COULD_NOT_VALIDATE');
      assert.equal(res.json().error.cause.field, field);
    }
    await assertUnchanged(identity.id, enrollment.id);
  });

  it('refuses an ott token with 400 INVALID_ENROLL_METHOD, an Accept without JSON with 406, and a used token with 400', async () => {
    const identity = await createIdentity(db(), { name: 'frank' });
    const ott = await createEnrollment(ctl, { identityId: identity.id, method: 'ott' });
    const wrong = await enrollUpdb(ott.token, { password: 'frank-password' });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.json().error.code, 'INVALID_ENROLL_METHOD');
    assert.equal(await isPending(ctl, ott.id), true);

    const { enrollment } = await newUpdb('grace');
    const picky = await enrollUpdb(enrollment.token, { password: 'grace-password' }, '/enroll/updb?', { accept: 'application/x-pem-file' });
    assert.equal(picky.status, 406);
    assert.equal(await isPending(ctl, enrollment.id), true);
    assert.equal((await enrollUpdb(enrollment.token, { password: 'grace-password' })).status, 200);
    const again = await enrollUpdb(enrollment.token, { password: 'other-password' });
    assert.equal(again.status, 410);
    assert.match(again.json().error.message, /already used/);
    assert.equal((await login('grace', 'grace-password')).status, 200, 'the first password stands');
  });
});
