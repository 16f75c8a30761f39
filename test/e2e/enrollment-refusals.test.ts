/**
 * What an enrollment refuses, and that each refusal changes nothing: CSRs that are not PEM, not CSRs, badly signed
 * or carrying a key the controller does not certify (400 MISSING_OR_INVALID_CSR with the reason), and expired
 * tokens (400 ENROLLMENT_EXPIRED; the enrollment stays until an administrator refreshes it). Time is a manual clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock } from '../../src/shared/clock.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { authenticatorsOf, createEnrollment, isPending, makeCsr, withBrokenSignature } from '../helpers/enrollment.js';
import { createIdentity } from '../helpers/fixtures.js';

const MINUTE = 60_000;

describe(`enrollment refusals (${testDialect})`, () => {
  const clock = manualClock(new Date());
  let ctl: TestController;
  let identityId: string;
  let enrollment: { id: string; token: string };
  before(async () => {
    ctl = await startTestController({ clock });
    identityId = (await createIdentity(ctl.running.database, { name: 'refused-device' })).id;
    enrollment = await createEnrollment(ctl, { identityId, method: 'ott', expiresAt: new Date(clock.now().getTime() + 10 * MINUTE) });
  });
  after(async () => ctl.close());

  const enroll = (token: string, body: string | undefined, contentType = 'application/x-pem-file') =>
    ctl.fetch(`/edge/client/v1/enroll/ott?token=${token}`, { method: 'POST', headers: body === undefined ? {} : { 'content-type': contentType }, ...(body === undefined ? {} : { body }) });

  async function assertUnchanged() {
    assert.equal(await isPending(ctl, enrollment.id), true, 'the enrollment is still pending');
    assert.deepEqual(await authenticatorsOf(ctl, identityId), [], 'no authenticator was created');
  }

  const csrCases: Array<{ name: string; body: () => Promise<string | undefined>; reason: RegExp }> = [
    { name: 'no body at all', body: async () => undefined, reason: /carries no CSR/ },
    { name: 'text that is not PEM', body: async () => 'hello, I am not a certificate request', reason: /not PEM/ },
    { name: 'a PEM certificate instead of a CSR', body: async () => ctl.ca, reason: /not a CSR: it holds a PEM CERTIFICATE block/ },
    { name: 'a CSR block holding garbage', body: async () => '-----BEGIN CERTIFICATE REQUEST-----\nZ2FyYmFnZQ==\n-----END CERTIFICATE REQUEST-----\n', reason: /not a DER-encoded PKCS#10/ },
    { name: 'two CSRs', body: async () => (await makeCsr()).pem + (await makeCsr()).pem, reason: /2 CERTIFICATE REQUEST blocks/ },
    { name: 'a CSR whose signature was altered', body: async () => withBrokenSignature((await makeCsr()).pem), reason: /signature does not verify/ },
    { name: 'an Ed25519 key', body: async () => (await makeCsr('ed25519')).pem, reason: /key type ed25519 is not accepted/ },
    { name: 'an RSA 1024 key', body: async () => (await makeCsr('rsa1024')).pem, reason: /RSA of 1024 bits, which is too small/ },
    { name: 'an EC P-521 key', body: async () => (await makeCsr('p521')).pem, reason: /curve secp521r1, which is not accepted/ },
  ];
  for (const c of csrCases) {
    it(`refuses ${c.name} with 400 MISSING_OR_INVALID_CSR saying why, and changes nothing`, async () => {
      const res = await enroll(enrollment.token, await c.body());
      assert.equal(res.status, 400, res.text);
      const { error } = res.json();
      assert.equal(error.code, 'MISSING_OR_INVALID_CSR');
      assert.match(error.cause.reason, c.reason);
      await assertUnchanged();
    });
  }

  it('refuses a JSON body at the ott operation as a missing CSR', async () => {
    const res = await ctl.fetch(`/edge/client/v1/enroll/ott?token=${enrollment.token}`, { method: 'POST', body: { clientCsr: 'x' } });
    assert.equal(res.status, 400);
    assert.equal(res.json().error.code, 'MISSING_OR_INVALID_CSR');
    await assertUnchanged();
  });

  it('refuses an expired token with 400 ENROLLMENT_EXPIRED and keeps the enrollment, which works again once refreshed', async () => {
    // Less than the admin session's 30-minute inactivity timeout, more than the enrollment's 10 minutes.
    clock.advance(11 * MINUTE);
    const csr = await makeCsr();
    const res = await enroll(enrollment.token, csr.pem);
    assert.equal(res.status, 400);
    assert.equal(res.json().error.code, 'ENROLLMENT_EXPIRED');
    await assertUnchanged();

    const admin = { 'svc-session': await ctl.adminToken() };
    const refreshed = await ctl.fetch(`/edge/management/v1/enrollments/${enrollment.id}/refresh`, {
      method: 'POST',
      headers: admin,
      body: { expiresAt: new Date(clock.now().getTime() + 30 * MINUTE).toISOString() },
    });
    assert.equal(refreshed.status, 200, refreshed.text);
    const { token } = refreshed.json().data;
    assert.notEqual(token, enrollment.token, 'refreshing issues a new token');
    const old = await enroll(enrollment.token, csr.pem);
    assert.equal(old.json().error.code, 'INVALID_ENROLLMENT_TOKEN', 'the old token no longer works');
    const ok = await enroll(token, csr.pem);
    assert.equal(ok.status, 200, ok.text);
    assert.equal((await authenticatorsOf(ctl, identityId)).length, 1);
  });
});
