/**
 * `POST /authenticators/{id}/re-enroll` end to end: an administrator turns a password authenticator back into a updb
 * enrollment of the same username, and a certificate authenticator into an ott enrollment, with one request; the
 * holder enrolls again with the new JWT's token. Bad ids, expiries and callers are refused with nothing changed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { addCertAuthenticator, createIdentity, issueClientCertificate } from '../helpers/fixtures.js';
import { managementClient, nonAdminToken, type ManagementClient } from '../helpers/management.js';

describe(`authenticator re-enroll (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
  });
  after(async () => ctl.close());

  const inADay = () => new Date(Date.now() + 86_400_000).toISOString();
  const authenticatorsOf = async (identityId: string) => (await admin.get(`/identities/${identityId}/authenticators`)).json().data;
  const enrollmentsOf = async (identityId: string) => (await admin.get(`/enrollments?filter=${encodeURIComponent(`identityId = "${identityId}"`)}`)).json().data;

  it('replaces a password authenticator with a updb enrollment of the same username, through which the holder sets a new password', async () => {
    const holder = await createIdentity(ctl.running.database, { name: 'forgetful', username: 'forgetful-login', password: 'Old-Password-1' });
    const [updb] = await authenticatorsOf(holder.id);
    const expiresAt = inADay();
    const res = await admin.post(`/authenticators/${updb.id}/re-enroll`, { expiresAt });
    assert.equal(res.status, 201);
    const { id, _links } = res.json().data;
    assert.deepEqual(_links, { self: { href: `./enrollments/${id}` } });
    assert.deepEqual(await authenticatorsOf(holder.id), []);
    const enrollment = (await admin.get(`/enrollments/${id}`)).json().data;
    assert.deepEqual([enrollment.method, enrollment.identityId, enrollment.username, enrollment.expiresAt], ['updb', holder.id, 'forgetful-login', expiresAt]);

    const enrolled = await ctl.fetch(`/edge/client/v1/enroll/updb?token=${enrollment.token}`, { method: 'POST', body: { password: 'New-Password-2' } });
    assert.equal(enrolled.status, 200);
    const login = (password: string) => ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'forgetful-login', password } });
    assert.deepEqual([(await login('Old-Password-1')).status, (await login('New-Password-2')).status], [401, 200]);
  });

  it('replaces a certificate authenticator with an ott enrollment and records both changes in the audit log', async () => {
    const holder = await createIdentity(ctl.running.database, { name: 'lost-laptop' });
    const cert = await issueClientCertificate(ctl.pki, holder.id);
    const certId = await addCertAuthenticator(ctl.running.database, holder.id, cert.leafPem);
    const res = await admin.post(`/authenticators/${certId}/re-enroll`, { expiresAt: inADay() });
    assert.equal(res.status, 201);
    const [enrollment] = await enrollmentsOf(holder.id);
    assert.deepEqual([enrollment.id, enrollment.method, enrollment.username], [res.json().data.id, 'ott', undefined]);
    assert.deepEqual(await authenticatorsOf(holder.id), []);
    const audit = (await admin.get(`/audit-log?filter=${encodeURIComponent(`entityId in ["${certId}", "${enrollment.id}"]`)}`)).json().data;
    assert.deepEqual(audit.map((e: { action: string; entityType: string }) => `${e.action} ${e.entityType}`).sort(), ['create enrollment', 'delete authenticator']);
  });

  it('refuses an expiry that is malformed, missing or not in the future with 400 naming expiresAt, and keeps the authenticator', async () => {
    const holder = await createIdentity(ctl.running.database, { name: 'careful', username: 'careful-login', password: 'Careful-Password-1' });
    const [updb] = await authenticatorsOf(holder.id);
    const anHourAgo = new Date(Date.now() - 3_600_000).toISOString();
    for (const body of [{ expiresAt: 'next tuesday' }, {}, { expiresAt: anHourAgo }]) {
      const res = await admin.post(`/authenticators/${updb.id}/re-enroll`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.json().error.message, /expiresAt/);
    }
    assert.deepEqual((await authenticatorsOf(holder.id)).map((a: { id: string }) => a.id), [updb.id]);
    assert.deepEqual(await enrollmentsOf(holder.id), []);
  });

  it("answers 404 naming an unknown authenticator, and refuses the default admin's password with nothing changed", async () => {
    const unknown = await admin.post('/authenticators/no-such-authenticator/re-enroll', { expiresAt: inADay() });
    assert.equal(unknown.status, 404);
    assert.match(unknown.json().error.message, /no-such-authenticator/);
    const [own] = (await admin.get(`/authenticators?filter=${encodeURIComponent('username = "admin"')}`)).json().data;
    const refused = await admin.post(`/authenticators/${own.id}/re-enroll`, { expiresAt: inADay() });
    assert.deepEqual([refused.status, refused.json().error.code], [400, 'ENTITY_CAN_NOT_BE_DELETED']);
    assert.equal((await admin.get(`/authenticators/${own.id}`)).status, 200);
  });

  it('refuses a non-administrator with 403 and changes nothing, where an administrator succeeds', async () => {
    const holder = await createIdentity(ctl.running.database, { name: 'guarded', username: 'guarded-login', password: 'Guarded-Password-1' });
    const [updb] = await authenticatorsOf(holder.id);
    const plain = managementClient(ctl, await nonAdminToken(ctl, 're-enroll-intruder'));
    const refused = await plain.post(`/authenticators/${updb.id}/re-enroll`, { expiresAt: inADay() });
    assert.equal(refused.status, 403);
    assert.deepEqual((await authenticatorsOf(holder.id)).map((a: { id: string }) => a.id), [updb.id]);
    assert.equal((await admin.post(`/authenticators/${updb.id}/re-enroll`, { expiresAt: inADay() })).status, 201);
  });
});
