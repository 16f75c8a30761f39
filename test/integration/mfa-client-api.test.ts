/**
 * The MFA operations of the client API (spec: MFA enrollment (client API) states, MFA group; issue 5): each
 * transition of the state table, then every bad input with its status, checking that nothing changed.
 * Codes come from the provisioning URL through an independent TOTP implementation; the clock is moved by hand.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { MANAGEMENT } from '../helpers/management.js';
import { totpCode, totpTestClock, wrongTotpCode } from '../helpers/totp.js';

const CLIENT = '/edge/client/v1';
const STEP = 30_000;

describe(`MFA enrollment on the client API (${testDialect})`, () => {
  const clock = totpTestClock();
  let ctl: TestController;
  let adminToken: string;
  before(async () => {
    ctl = await startTestController({ clock, inProcess: true });
    adminToken = await ctl.adminToken();
  });
  after(async () => ctl.close());

  const db = () => ctl.running.database.db;
  async function sessionOf(name: string): Promise<{ token: string; identityId: string }> {
    const identity = await createIdentity(ctl.running.database, { name, username: name, password: `${name}-password` });
    const res = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: name, password: `${name}-password` } });
    assert.equal(res.status, 200, res.text);
    return { token: String(res.headers['svc-session']), identityId: identity.id };
  }
  const call = (token: string, method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) =>
    ctl.fetch(`${CLIENT}${path}`, { method, headers: { 'svc-session': token, ...(options.headers ?? {}) }, ...(options.body === undefined ? {} : { body: options.body as object }) });
  /** The next step's code (each accepted step can be used once). */
  const nextCode = (url: string) => {
    clock.advance(STEP);
    return totpCode(url, clock.now());
  };
  const stored = (identityId: string) => db().selectFrom('mfa_enrollments').selectAll().where('identity_id', '=', identityId).executeTakeFirst();

  /** Starts and verifies an enrollment; returns its provisioning URL and recovery codes. */
  async function enrolled(token: string) {
    const start = await call(token, 'POST', '/current-identity/mfa');
    assert.equal(start.status, 201, start.text);
    const { provisioningUrl, recoveryCodes } = start.json().data;
    const verify = await call(token, 'POST', '/current-identity/mfa/verify', { body: { code: nextCode(provisioningUrl) } });
    assert.equal(verify.status, 200, verify.text);
    return { provisioningUrl: provisioningUrl as string, recoveryCodes: recoveryCodes as string[] };
  }

  it('not enrolled -> pending: POST current-identity/mfa returns the provisioning URL and 20 recovery codes; GET and the QR code show them', async () => {
    const { token, identityId } = await sessionOf('mfa-alice');
    const none = await call(token, 'GET', '/current-identity/mfa');
    assert.equal(none.status, 404);
    const res = await call(token, 'POST', '/current-identity/mfa');
    assert.equal(res.status, 201, res.text);
    const data = res.json().data;
    assert.equal(data.isVerified, false);
    assert.match(data.provisioningUrl, /^otpauth:\/\/totp\/mfa-alice\?issuer=127\.0\.0\.1&secret=[A-Z2-7]{32}$/);
    assert.equal(data.recoveryCodes.length, 20);
    for (const code of data.recoveryCodes) assert.match(code, /^[A-Z2-7]{6}$/);
    assert.equal(data._links.self.href, './current-identity/mfa');

    const status = await call(token, 'GET', '/current-identity/mfa');
    assert.equal(status.status, 200);
    assert.equal(status.json().data.provisioningUrl, data.provisioningUrl);
    assert.deepEqual(status.json().data.recoveryCodes, data.recoveryCodes);

    const qr = await call(token, 'GET', '/current-identity/mfa/qr-code');
    assert.equal(qr.status, 200);
    assert.equal(qr.headers['content-type'], 'image/png');
    assert.deepEqual([...qr.body.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.equal(qr.body.readUInt32BE(16), 256, 'the PNG is 256 pixels wide');

    // Sealed at rest: neither the secret nor a recovery code appears in the stored row.
    const row = await stored(identityId);
    const secret = new URL(data.provisioningUrl).searchParams.get('secret') as string;
    assert.ok(row && !JSON.stringify(row).includes(secret));
    assert.ok(!JSON.stringify(row).includes(data.recoveryCodes[0]));
  });

  it('pending -> enrolled: verify with a valid code; the QR code and enrollment details are then hidden', async () => {
    const { token } = await sessionOf('mfa-bob');
    const { provisioningUrl } = await enrolled(token);
    const status = await call(token, 'GET', '/current-identity/mfa');
    assert.equal(status.status, 200);
    assert.equal(status.json().data.isVerified, true);
    assert.equal(status.json().data.provisioningUrl, undefined);
    assert.equal(status.json().data.recoveryCodes, undefined);
    assert.equal((await call(token, 'GET', '/current-identity/mfa/qr-code')).status, 404);
    const again = await call(token, 'POST', '/current-identity/mfa/verify', { body: { code: nextCode(provisioningUrl) } });
    assert.equal(again.status, 404, 'verify after completion');
    assert.equal(again.json().error.code, 'MFA_ENROLLMENT_NOT_STARTED');
  });

  it('refuses a second enrollment with 409 while one exists, pending or verified', async () => {
    const { token } = await sessionOf('mfa-carl');
    assert.equal((await call(token, 'POST', '/current-identity/mfa')).status, 201);
    const pending = await call(token, 'POST', '/current-identity/mfa');
    assert.equal(pending.status, 409);
    assert.equal(pending.json().error.code, 'MFA_EXISTS');
  });

  it('enrolled -> not enrolled: DELETE needs a valid code in mfa-validation-code; then enrollment may start again', async () => {
    const { token, identityId } = await sessionOf('mfa-dora');
    const { provisioningUrl, recoveryCodes } = await enrolled(token);
    const missing = await call(token, 'DELETE', '/current-identity/mfa');
    assert.equal(missing.status, 400);
    assert.equal(missing.json().error.code, 'MFA_INVALID_TOKEN');
    const empty = await call(token, 'DELETE', '/current-identity/mfa', { headers: { 'mfa-validation-code': '' } });
    assert.equal(empty.status, 400);
    const wrong = await call(token, 'DELETE', '/current-identity/mfa', { headers: { 'mfa-validation-code': wrongTotpCode(provisioningUrl, clock.now()) } });
    assert.equal(wrong.status, 400);
    assert.ok(await stored(identityId), 'still enrolled after refused deletes');
    // A recovery code is accepted here.
    const res = await call(token, 'DELETE', '/current-identity/mfa', { headers: { 'mfa-validation-code': recoveryCodes[0] as string } });
    assert.equal(res.status, 200, res.text);
    assert.equal(await stored(identityId), undefined);
    assert.equal((await call(token, 'GET', '/current-identity/mfa')).status, 404);
    assert.equal((await call(token, 'DELETE', '/current-identity/mfa', { headers: { 'mfa-validation-code': '' } })).status, 404);
    assert.equal((await call(token, 'POST', '/current-identity/mfa')).status, 201);
  });

  it('deletes a pending enrollment with an empty mfa-validation-code', async () => {
    const { token, identityId } = await sessionOf('mfa-emil');
    await call(token, 'POST', '/current-identity/mfa');
    const res = await call(token, 'DELETE', '/current-identity/mfa', { headers: { 'mfa-validation-code': '' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(await stored(identityId), undefined);
  });

  it('enrolled -> enrolled: regenerating replaces every recovery code; viewing needs a TOTP code', async () => {
    const { token } = await sessionOf('mfa-fay');
    const { provisioningUrl, recoveryCodes } = await enrolled(token);
    const view = await call(token, 'GET', '/current-identity/mfa/recovery-codes', { headers: { 'mfa-validation-code': nextCode(provisioningUrl) } });
    assert.equal(view.status, 200, view.text);
    assert.deepEqual(view.json().data.recoveryCodes, recoveryCodes);
    const noCode = await call(token, 'GET', '/current-identity/mfa/recovery-codes');
    assert.equal(noCode.status, 400);
    const withRecovery = await call(token, 'GET', '/current-identity/mfa/recovery-codes', { headers: { 'mfa-validation-code': recoveryCodes[1] as string } });
    assert.equal(withRecovery.status, 400, 'viewing takes a TOTP code only');

    const regenerated = await call(token, 'POST', '/current-identity/mfa/recovery-codes', { body: { code: recoveryCodes[2] } });
    assert.equal(regenerated.status, 200, regenerated.text);
    const fresh = regenerated.json().data.recoveryCodes as string[];
    assert.equal(fresh.length, 20);
    assert.equal(fresh.filter((code) => recoveryCodes.includes(code)).length, 0);
    const after = await call(token, 'GET', '/current-identity/mfa/recovery-codes', { headers: { 'mfa-validation-code': nextCode(provisioningUrl) } });
    assert.deepEqual(after.json().data.recoveryCodes, fresh);
    // An old code no longer works.
    const old = await call(token, 'POST', '/current-identity/mfa/recovery-codes', { body: { code: recoveryCodes[3] } });
    assert.equal(old.status, 400);
  });

  it('refuses recovery-code operations without a verified enrollment with 404', async () => {
    const { token } = await sessionOf('mfa-gus');
    assert.equal((await call(token, 'GET', '/current-identity/mfa/recovery-codes', { headers: { 'mfa-validation-code': '123456' } })).status, 404);
    await call(token, 'POST', '/current-identity/mfa');
    assert.equal((await call(token, 'POST', '/current-identity/mfa/recovery-codes', { body: { code: '123456' } })).status, 404);
  });

  it('refuses verify without an enrollment, and every malformed, wrong or expired code, leaving the enrollment pending', async () => {
    const { token, identityId } = await sessionOf('mfa-hal');
    const none = await call(token, 'POST', '/current-identity/mfa/verify', { body: { code: '123456' } });
    assert.equal(none.status, 404);
    assert.equal(none.json().error.code, 'MFA_ENROLLMENT_NOT_STARTED');
    const { provisioningUrl, recoveryCodes } = (await call(token, 'POST', '/current-identity/mfa')).json().data;
    const valid = totpCode(provisioningUrl, clock.now());
    const cases: Array<[string, unknown, number, string]> = [
      ['short', valid.slice(0, 5), 400, 'MFA_INVALID_TOKEN'],
      ['long', `${valid}7`, 400, 'MFA_INVALID_TOKEN'],
      ['non-numeric', 'abc12!', 400, 'MFA_INVALID_TOKEN'],
      ['empty', '', 400, 'MFA_INVALID_TOKEN'],
      ['a recovery code', recoveryCodes[0], 400, 'MFA_INVALID_TOKEN'],
      ['a number', 123456, 400, 'COULD_NOT_VALIDATE'],
      ['wrong', wrongTotpCode(provisioningUrl, clock.now()), 400, 'MFA_INVALID_TOKEN'],
      ['expired (two steps old)', totpCode(provisioningUrl, new Date(clock.now().getTime() - 2 * STEP)), 400, 'MFA_INVALID_TOKEN'],
    ];
    for (const [what, code, status, errorCode] of cases) {
      const res = await call(token, 'POST', '/current-identity/mfa/verify', { body: { code } });
      assert.equal(res.status, status, `${what}: ${res.text}`);
      assert.equal(res.json().error.code, errorCode, what);
    }
    const missing = await call(token, 'POST', '/current-identity/mfa/verify', { body: {} });
    assert.equal(missing.status, 400);
    assert.equal(missing.json().error.cause.field, 'code');
    assert.equal(Boolean((await stored(identityId))?.is_verified), false);
    // The previous and the next step are accepted (one step of skew either way).
    const res = await call(token, 'POST', '/current-identity/mfa/verify', { body: { code: totpCode(provisioningUrl, new Date(clock.now().getTime() + STEP)) } });
    assert.equal(res.status, 200, res.text);
  });

  it('accepts a TOTP code once per time step (a replay is refused) and locks after five wrong codes', async () => {
    const { token, identityId } = await sessionOf('mfa-ivy');
    const { provisioningUrl } = await enrolled(token);
    const code = nextCode(provisioningUrl);
    const view = () => call(token, 'GET', '/current-identity/mfa/recovery-codes', { headers: { 'mfa-validation-code': code } });
    assert.equal((await view()).status, 200);
    const replay = await view();
    assert.equal(replay.status, 400);
    assert.match(replay.json().error.message, /already been used/);

    for (let i = 0; i < 4; i++) {
      const wrong = await call(token, 'GET', '/current-identity/mfa/recovery-codes', { headers: { 'mfa-validation-code': wrongTotpCode(provisioningUrl, clock.now()) } });
      assert.equal(wrong.status, 400);
    }
    const fifth = await call(token, 'GET', '/current-identity/mfa/recovery-codes', { headers: { 'mfa-validation-code': wrongTotpCode(provisioningUrl, clock.now()) } });
    assert.equal(fifth.status, 400);
    assert.match(fifth.json().error.message, /locked/);
    const locked = await call(token, 'GET', '/current-identity/mfa/recovery-codes', { headers: { 'mfa-validation-code': nextCode(provisioningUrl) } });
    assert.equal(locked.status, 429);
    assert.equal(locked.json().error.code, 'MFA_LOCKED');
    assert.ok(Number(locked.headers['retry-after']) > 0 && Number(locked.headers['retry-after']) <= 300, `retry-after ${locked.headers['retry-after']}`);
    clock.advance(5 * 60_000);
    const unlocked = await call(token, 'GET', '/current-identity/mfa/recovery-codes', { headers: { 'mfa-validation-code': nextCode(provisioningUrl) } });
    assert.equal(unlocked.status, 200, unlocked.text);
    assert.equal(Number((await stored(identityId))?.failed_attempts), 0);
  });

  it('lets an administrator remove the MFA of another identity; others get 403, unknown ids 404', async () => {
    const { token, identityId } = await sessionOf('mfa-jan');
    await enrolled(token);
    const other = await sessionOf('mfa-kim');
    const admin = (path: string, sessionToken = adminToken) => ctl.fetch(`${MANAGEMENT}${path}`, { method: 'DELETE', headers: { 'svc-session': sessionToken } });
    assert.equal((await admin(`/identities/${identityId}/mfa`, other.token)).status, 403);
    assert.equal((await ctl.fetch(`${MANAGEMENT}/identities/${identityId}/mfa`, { method: 'DELETE' })).status, 401);
    assert.ok(await stored(identityId));
    const res = await admin(`/identities/${identityId}/mfa`);
    assert.equal(res.status, 200, res.text);
    assert.equal(await stored(identityId), undefined);
    assert.equal((await admin(`/identities/${identityId}/mfa`)).status, 404);
    assert.equal((await admin('/identities/no-such-identity/mfa')).status, 404);
    const audit = await ctl.fetch(`${MANAGEMENT}/audit-log?filter=${encodeURIComponent('entityType = "mfa" and action = "delete"')}`, { headers: { 'svc-session': adminToken } });
    assert.ok(audit.json().data.some((entry: any) => entry.details.identityId === identityId));
  });

  it('needs a session for every MFA operation', async () => {
    for (const [method, path] of [
      ['POST', '/current-identity/mfa'],
      ['GET', '/current-identity/mfa'],
      ['DELETE', '/current-identity/mfa'],
      ['GET', '/current-identity/mfa/qr-code'],
      ['POST', '/current-identity/mfa/verify'],
      ['GET', '/current-identity/mfa/recovery-codes'],
      ['POST', '/current-identity/mfa/recovery-codes'],
      ['POST', '/authenticate/mfa'],
    ] as const) {
      const res = await ctl.fetch(`${CLIENT}${path}`, { method, ...(method === 'POST' ? { body: { code: '123456' } } : {}) });
      assert.equal(res.status, 401, `${method} ${path}`);
    }
  });
});
