/**
 * The whole life of two identities, as an operator and their users would go through it (issue 3's acceptance):
 * created with updb and ott enrollments through the management API, enrolled through the client API (the ott
 * one with a CSR made here), logged in by password and by certificate, sessions used and ended.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { makeCsr } from '../helpers/enrollment.js';
import { managementClient, type ManagementClient } from '../helpers/management.js';

describe(`an identity's life from creation to logout (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let alice: { id: string; token?: string };
  let device: { id: string; cert?: string; key?: string; token?: string };
  before(async () => {
    ctl = await startTestController();
    admin = managementClient(ctl, await ctl.adminToken());
  });
  after(async () => ctl.close());

  const client = (path: string, options: Parameters<TestController['fetch']>[1] = {}) => ctl.fetch(`/edge/client/v1${path}`, options);

  it('creates a person with a username/password enrollment and a device with a one-time-token enrollment', async () => {
    const person = await admin.post('/identities', { name: 'alice', type: 'User', isAdmin: false, enrollment: { updb: 'alice' } });
    assert.equal(person.status, 201, person.text);
    alice = { id: person.json().data.id };
    const thing = await admin.post('/identities', { name: 'sensor-7', type: 'Device', isAdmin: false, roleAttributes: ['sensors'], enrollment: { ott: true } });
    assert.equal(thing.status, 201, thing.text);
    device = { id: thing.json().data.id };

    const detail = (await admin.get(`/identities/${device.id}`)).json().data;
    assert.equal(typeof detail.enrollment.ott.jwt, 'string');
    assert.deepEqual(detail.authenticators, {});
  });

  it('lets alice set her password through her enrollment token', async () => {
    const { updb } = (await admin.get(`/identities/${alice.id}`)).json().data.enrollment;
    const res = await client(`/enroll/updb?token=${updb.token}`, { method: 'POST', body: { password: 'correct horse battery' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json().data.username, 'alice');
    const detail = (await admin.get(`/identities/${alice.id}`)).json().data;
    assert.equal(detail.authenticators.updb.username, 'alice');
    assert.equal(detail.enrollment.updb, undefined, 'the enrollment is used up');
  });

  it('gives the device a certificate for its own CSR through its one-time token', async () => {
    const { ott } = (await admin.get(`/identities/${device.id}`)).json().data.enrollment;
    const csr = await makeCsr('p256', device.id);
    const res = await client(`/enroll/ott?token=${ott.token}`, { method: 'POST', body: csr.pem, headers: { 'content-type': 'application/x-pem-file' } });
    assert.equal(res.status, 200, res.text);
    device.cert = res.json().data.cert as string;
    device.key = csr.keyPem;
    assert.match(device.cert, /-----BEGIN CERTIFICATE-----/);
  });

  it('logs alice in by password and the device by its certificate', async () => {
    const byPassword = await client('/authenticate?method=password', { method: 'POST', body: { username: 'alice', password: 'correct horse battery' } });
    assert.equal(byPassword.status, 200, byPassword.text);
    alice.token = byPassword.json().data.token;
    const byCert = await client('/authenticate?method=cert', { method: 'POST', cert: device.cert!, key: device.key! });
    assert.equal(byCert.status, 200, byCert.text);
    assert.equal(byCert.json().data.identity.name, 'sensor-7');
    device.token = byCert.json().data.token;
  });

  it('uses the sessions: each sees its own identity and authenticators, not the admin API', async () => {
    const me = await client('/current-identity', { headers: { 'svc-session': alice.token! } });
    assert.equal(me.status, 200);
    assert.equal(me.json().data.name, 'alice');
    const mine = (await client('/current-identity/authenticators', { headers: { 'svc-session': device.token! } })).json();
    assert.deepEqual(mine.data.map((a: { method: string }) => a.method), ['cert']);
    assert.equal(mine.data[0].identityId, device.id);
    const forbidden = await ctl.fetch('/edge/management/v1/identities', { headers: { 'svc-session': alice.token! } });
    assert.equal(forbidden.status, 403);
  });

  it('ends both sessions on logout', async () => {
    for (const token of [alice.token!, device.token!]) {
      assert.equal((await client('/current-api-session', { method: 'DELETE', headers: { 'svc-session': token } })).status, 200);
      assert.equal((await client('/current-identity', { headers: { 'svc-session': token } })).status, 401);
    }
  });
});
