/**
 * Authenticator management end to end: list with filters, read, delete; the default admin keeps its password
 * authenticator; and no management answer ever carries a password or a password hash.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { addCertAuthenticator, createIdentity, issueClientCertificate } from '../helpers/fixtures.js';
import { authPolicyBody, managementClient, type ManagementClient } from '../helpers/management.js';

describe(`authenticator management (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let user: { id: string; name: string };
  let fingerprint: string;
  before(async () => {
    ctl = await startTestController();
    admin = managementClient(ctl, await ctl.adminToken());
    user = await createIdentity(ctl.running.database, { name: 'holder', username: 'holder-login', password: 'holder-password' });
    const cert = await issueClientCertificate(ctl.pki, user.id);
    await addCertAuthenticator(ctl.running.database, user.id, cert.leafPem);
    fingerprint = cert.fingerprint;
  });
  after(async () => ctl.close());

  const list = async (filter: string) => (await admin.get(`/authenticators?filter=${encodeURIComponent(filter)}`)).json();

  it('lists authenticators of every identity with filters', async () => {
    const all = (await admin.get('/authenticators')).json();
    assert.equal(all.meta.pagination.totalCount, 3);
    assert.deepEqual(all.meta.filterableFields.sort(), ['certFingerprint', 'createdAt', 'id', 'identityId', 'method', 'username']);
    const passwords = await list('method = "updb" sort by username');
    assert.deepEqual(passwords.data.map((a: { username: string }) => a.username), ['admin', 'holder-login']);
    const certs = await list(`certFingerprint = "${fingerprint}"`);
    assert.deepEqual(certs.data.map((a: { identityId: string }) => a.identityId), [user.id]);
  });

  it('reads one authenticator with its identity, method and certificate but no secret', async () => {
    const [cert] = (await list(`identityId = "${user.id}" and method = "cert"`)).data;
    const res = await admin.get(`/authenticators/${cert.id}`);
    assert.equal(res.status, 200);
    const { data } = res.json();
    assert.equal(data.method, 'cert');
    assert.deepEqual({ id: data.identity.id, name: data.identity.name }, { id: user.id, name: 'holder' });
    assert.equal(data.fingerprint, fingerprint);
    assert.match(data.certPem, /BEGIN CERTIFICATE/);
    assert.equal(data.isIssuedByNetwork, true);
    assert.equal(data.username, undefined);
    assert.deepEqual(data._links, { self: { href: `./authenticators/${cert.id}` } });
    const [updb] = (await list(`identityId = "${user.id}" and method = "updb"`)).data;
    const password = (await admin.get(`/authenticators/${updb.id}`)).json().data;
    assert.deepEqual([password.username, password.fingerprint, password.certPem], ['holder-login', undefined, undefined]);
  });

  it('deletes an authenticator, which then no longer logs in or appears in the identity detail', async () => {
    const [updb] = (await list(`identityId = "${user.id}" and method = "updb"`)).data;
    const res = await admin.del(`/authenticators/${updb.id}`);
    assert.deepEqual([res.status, res.json()], [200, { data: {}, meta: {} }]);
    assert.equal((await admin.get(`/authenticators/${updb.id}`)).status, 404);
    const detail = (await admin.get(`/identities/${user.id}`)).json().data;
    assert.equal(detail.authenticators.updb, undefined);
    assert.equal(detail.authenticators.cert.fingerprint, fingerprint);
    const login = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'holder-login', password: 'holder-password' } });
    assert.equal(login.status, 401);
  });

  it("refuses to delete the default admin's password authenticator", async () => {
    const [own] = (await list('username = "admin"')).data;
    const res = await admin.del(`/authenticators/${own.id}`);
    assert.deepEqual([res.status, res.json().error.code], [400, 'ENTITY_CAN_NOT_BE_DELETED']);
    assert.equal((await admin.get(`/authenticators/${own.id}`)).status, 200);
  });

  it('answers 404 NOT_FOUND naming the id of an unknown authenticator', async () => {
    for (const res of [await admin.get('/authenticators/nope'), await admin.del('/authenticators/nope')]) {
      assert.deepEqual([res.status, res.json().error.code], [404, 'NOT_FOUND']);
      assert.match(res.json().error.message, /nope/);
    }
  });

  it('never sends a password or a password hash in any management answer', async () => {
    // Touch every kind of view once more so the check covers them all.
    await admin.get('/identities?limit=500');
    await admin.get(`/identities/${user.id}`);
    await admin.post('/auth-policies', authPolicyBody('checked'));
    await admin.get('/auth-policies');
    await admin.get('/audit-log?limit=500');
    await admin.get('/authenticators?limit=500');
    assert.ok(admin.seen.length > 10);
    for (const text of admin.seen) {
      assert.doesNotMatch(text, /password|passwordHash|password_hash|\$argon2/, text);
    }
  });
});
