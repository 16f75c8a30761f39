/**
 * Identity management end to end: create, read, list with filters, replace, patch, delete with what hangs off an
 * identity, disable and enable, the default admin's protections, and enrollments made with the identity.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock } from '../../src/shared/clock.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { addCertAuthenticator, createIdentity, issueClientCertificate } from '../helpers/fixtures.js';
import { managementClient, type ManagementClient } from '../helpers/management.js';

const MINUTE = 60_000;

describe(`identity management (${testDialect})`, () => {
  const clock = manualClock(new Date());
  let ctl: TestController;
  let admin: ManagementClient;
  let adminId: string;
  before(async () => {
    ctl = await startTestController({ clock, inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    adminId = (await admin.get('/identities?filter=isDefaultAdmin%20%3D%20true')).json().data[0].id;
  });
  after(async () => ctl.close());

  const create = async (body: Record<string, unknown>) => {
    const res = await admin.post('/identities', { type: 'User', isAdmin: false, ...body });
    assert.equal(res.status, 201, res.text);
    return res.json().data.id as string;
  };
  const detail = async (id: string) => (await admin.get(`/identities/${id}`)).json().data;
  const names = async (filter: string) =>
    (await admin.get(`/identities?filter=${encodeURIComponent(filter)}`)).json().data.map((i: { name: string }) => i.name);
  const login = (username: string, password: string) =>
    ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username, password } });

  it('creates an identity, answers 201 with its id and link, and reads it back with defaults filled in', async () => {
    const res = await admin.post('/identities', { name: 'laptop-01', type: 'Device', isAdmin: false });
    assert.equal(res.status, 201);
    const { data, meta } = res.json();
    assert.deepEqual(meta, {});
    assert.deepEqual(data._links, { self: { href: `./identities/${data.id}` } });
    const identity = await detail(data.id);
    assert.equal(identity.name, 'laptop-01');
    assert.deepEqual({ id: identity.type.id, name: identity.type.name }, { id: 'Device', name: 'Device' });
    assert.equal(identity.typeId, 'Device');
    assert.equal(identity.isAdmin, false);
    assert.equal(identity.isDefaultAdmin, false);
    assert.equal(identity.disabled, false);
    assert.equal(identity.disabledAt, null);
    assert.equal(identity.authPolicyId, 'default');
    assert.deepEqual({ id: identity.authPolicy.id, name: identity.authPolicy.name }, { id: 'default', name: 'Default' });
    assert.equal(identity.externalId, null);
    assert.deepEqual(identity.roleAttributes, []);
    assert.deepEqual(identity.tags, {});
    assert.equal(identity.hasApiSession, false);
    assert.deepEqual(identity.authenticators, {});
    assert.deepEqual(identity.enrollment, {});
  });

  it('stores every identity type as given', async () => {
    for (const type of ['User', 'Device', 'Service', 'Router', 'Default']) {
      const id = await create({ name: `${type.toLowerCase()}-01`, type });
      const identity = await detail(id);
      assert.equal(identity.typeId, type);
      assert.deepEqual(identity.type._links, { self: { href: `./identity-types/${type}` } });
    }
  });

  it('keeps role attributes, tags, externalId and the auth policy given at creation', async () => {
    const id = await create({ name: 'tagged', roleAttributes: ['web', 'ops'], tags: { site: 'lab', managed: true, note: null }, externalId: 'ext-tagged', authPolicyId: 'default' });
    const identity = await detail(id);
    assert.deepEqual(identity.roleAttributes, ['web', 'ops']);
    assert.deepEqual(identity.tags, { site: 'lab', managed: true, note: null });
    assert.equal(identity.externalId, 'ext-tagged');
  });

  it('lists identities with filters, sort and paging in the database', async () => {
    for (const n of ['c', 'a', 'b']) await create({ name: `fleet-${n}`, roleAttributes: ['fleet'] });
    await create({ name: 'fleet-admin', isAdmin: true });
    assert.deepEqual(await names('name contains "fleet" and isAdmin = false sort by name desc'), ['fleet-c', 'fleet-b', 'fleet-a']);
    assert.deepEqual(await names('name contains "fleet" and isAdmin = true'), ['fleet-admin']);
    assert.deepEqual(await names('type = "Router"'), ['router-01']);
    assert.deepEqual(await names('externalId = "ext-tagged"'), ['tagged']);
    assert.ok((await names('authPolicyId = "default" and disabled = false limit 500')).includes('fleet-a'));
    const page = (await admin.get(`/identities?filter=${encodeURIComponent('name contains "fleet"')}&sort=name&limit=2&offset=1`)).json();
    assert.deepEqual(page.data.map((i: { name: string }) => i.name), ['fleet-admin', 'fleet-b']);
    assert.deepEqual(page.meta.pagination, { limit: 2, offset: 1, totalCount: 4 });
    assert.ok(page.meta.filterableFields.includes('authPolicyId'));
  });

  it('replaces an identity with PUT, returning absent optional fields to their defaults', async () => {
    const id = await create({ name: 'to-replace', roleAttributes: ['x'], tags: { a: 'b' }, externalId: 'ext-replace' });
    const res = await admin.put(`/identities/${id}`, { name: 'replaced', type: 'Router', isAdmin: true });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json(), { data: {}, meta: {} });
    const identity = await detail(id);
    assert.deepEqual(
      { name: identity.name, typeId: identity.typeId, isAdmin: identity.isAdmin, roleAttributes: identity.roleAttributes, tags: identity.tags, externalId: identity.externalId },
      { name: 'replaced', typeId: 'Router', isAdmin: true, roleAttributes: [], tags: {}, externalId: null },
    );
  });

  it('patches only the fields given, and null clears externalId', async () => {
    const id = await create({ name: 'to-patch', roleAttributes: ['keep'], externalId: 'ext-patch' });
    assert.equal((await admin.patch(`/identities/${id}`, { tags: { env: 'prod' } })).status, 200);
    let identity = await detail(id);
    assert.deepEqual([identity.name, identity.roleAttributes, identity.tags, identity.externalId], ['to-patch', ['keep'], { env: 'prod' }, 'ext-patch']);
    assert.equal((await admin.patch(`/identities/${id}`, { externalId: null, name: 'patched' })).status, 200);
    identity = await detail(id);
    assert.deepEqual([identity.name, identity.externalId, identity.tags], ['patched', null, { env: 'prod' }]);
  });

  it('keeps hosting settings: defaults when absent, as given on create and PUT, the given ones on PATCH', async () => {
    const id = await create({ name: 'host' });
    let identity = await detail(id);
    assert.deepEqual(
      [identity.defaultHostingPrecedence, identity.defaultHostingCost, identity.serviceHostingPrecedences, identity.serviceHostingCosts],
      ['default', 0, {}, {}],
    );
    const hosting = { defaultHostingPrecedence: 'required', defaultHostingCost: 65_535, serviceHostingPrecedences: { s1: 'failed' }, serviceHostingCosts: { s1: 7 } };
    assert.equal((await admin.put(`/identities/${id}`, { name: 'host', type: 'User', isAdmin: false, ...hosting })).status, 200);
    identity = await detail(id);
    assert.deepEqual(
      [identity.defaultHostingPrecedence, identity.defaultHostingCost, identity.serviceHostingPrecedences, identity.serviceHostingCosts],
      ['required', 65_535, { s1: 'failed' }, { s1: 7 }],
    );
    assert.equal((await admin.patch(`/identities/${id}`, { defaultHostingCost: 3 })).status, 200);
    identity = await detail(id);
    assert.deepEqual([identity.defaultHostingPrecedence, identity.defaultHostingCost, identity.serviceHostingCosts], ['required', 3, { s1: 7 }]);
  });

  it('refuses hosting settings out of range and role attributes that look like roles, naming the field, changing nothing', async () => {
    const id = await create({ name: 'strict-host', roleAttributes: ['ok'] });
    const before = await detail(id);
    for (const [body, field] of [
      [{ defaultHostingCost: -1 }, 'defaultHostingCost'],
      [{ defaultHostingCost: 65_536 }, 'defaultHostingCost'],
      [{ defaultHostingPrecedence: 'sometimes' }, 'defaultHostingPrecedence'],
      [{ serviceHostingCosts: { s1: -5 } }, 'serviceHostingCosts'],
      [{ roleAttributes: ['ok', '#role'] }, 'roleAttributes[1]'],
      [{ roleAttributes: ['@someone'] }, 'roleAttributes[0]'],
      [{ roleAttributes: ['all'] }, 'roleAttributes[0]'],
    ] as const) {
      const res = await admin.patch(`/identities/${id}`, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(JSON.stringify(res.json().error), new RegExp(field.replace(/[[\]]/g, '\\$&')), JSON.stringify(body));
    }
    assert.deepEqual(await detail(id), before);
  });

  it('indexes role attributes for the policy engine on create, change and delete', async () => {
    const indexed = async (id: string) =>
      (await ctl.running.database.db.selectFrom('entity_attributes').select('attribute').where('entity_type', '=', 'identity').where('entity_id', '=', id).orderBy('attribute').execute()).map(
        (row) => row.attribute,
      );
    const id = await create({ name: 'indexed', roleAttributes: ['sales', 'emea'] });
    assert.deepEqual(await indexed(id), ['emea', 'sales']);
    assert.equal((await admin.patch(`/identities/${id}`, { roleAttributes: ['apac'] })).status, 200);
    assert.deepEqual(await indexed(id), ['apac']);
    assert.equal((await admin.del(`/identities/${id}`)).status, 200);
    assert.deepEqual(await indexed(id), []);
  });

  it('deletes an identity together with its authenticators and API sessions', async () => {
    const { id } = await createIdentity(ctl.running.database, { name: 'doomed', password: 'doomed-password' });
    const cert = await issueClientCertificate(ctl.pki, id);
    await addCertAuthenticator(ctl.running.database, id, cert.leafPem);
    const token = (await login('doomed', 'doomed-password')).json().data.token as string;
    const before = await detail(id);
    assert.equal(before.hasApiSession, true);
    assert.ok(before.authenticators.cert && before.authenticators.updb);

    const res = await admin.del(`/identities/${id}`);
    assert.deepEqual([res.status, res.json()], [200, { data: {}, meta: {} }]);
    assert.equal((await admin.get(`/identities/${id}`)).status, 404);
    const left = (await admin.get(`/authenticators?filter=${encodeURIComponent(`identityId = "${id}"`)}`)).json();
    assert.equal(left.meta.pagination.totalCount, 0);
    assert.equal((await ctl.fetch('/edge/client/v1/current-api-session', { headers: { 'svc-session': token } })).status, 401);
  });

  it('answers 404 NOT_FOUND naming the id for every operation on an unknown identity', async () => {
    const calls = [
      admin.get('/identities/nope'),
      admin.put('/identities/nope', { name: 'x', type: 'User', isAdmin: false }),
      admin.patch('/identities/nope', { name: 'x' }),
      admin.del('/identities/nope'),
      admin.post('/identities/nope/disable', { durationMinutes: 0 }),
      admin.post('/identities/nope/enable'),
      admin.get('/identities/nope/authenticators'),
    ];
    for (const res of await Promise.all(calls)) {
      assert.equal(res.status, 404);
      assert.equal(res.json().error.code, 'NOT_FOUND');
      assert.match(res.json().error.message, /nope/);
    }
  });

  it("shows an identity's authenticators and session in its detail, and lists its authenticators", async () => {
    const identity = await detail(adminId);
    assert.equal(identity.isDefaultAdmin, true);
    assert.equal(identity.hasApiSession, true);
    assert.equal(identity.authenticators.updb.username, 'admin');
    assert.equal(identity.authenticators.cert, undefined);
    const list = (await admin.get(`/identities/${adminId}/authenticators`)).json();
    assert.equal(list.meta.pagination.totalCount, 1);
    assert.deepEqual([list.data[0].method, list.data[0].username, list.data[0].identity.name], ['updb', 'admin', 'admin']);
  });

  it('protects the default admin: it cannot be deleted, disabled or lose isAdmin, and stays as it was', async () => {
    const del = await admin.del(`/identities/${adminId}`);
    assert.deepEqual([del.status, del.json().error.code], [400, 'ENTITY_CAN_NOT_BE_DELETED']);
    const patch = await admin.patch(`/identities/${adminId}`, { isAdmin: false });
    assert.deepEqual([patch.status, patch.json().error.code, patch.json().error.cause.field], [400, 'ENTITY_CAN_NOT_BE_UPDATED', 'isAdmin']);
    const put = await admin.put(`/identities/${adminId}`, { name: 'admin', type: 'User', isAdmin: false });
    assert.deepEqual([put.status, put.json().error.code], [400, 'ENTITY_CAN_NOT_BE_UPDATED']);
    const disable = await admin.post(`/identities/${adminId}/disable`, { durationMinutes: 0 });
    assert.deepEqual([disable.status, disable.json().error.code], [400, 'ENTITY_CAN_NOT_BE_UPDATED']);
    const identity = await detail(adminId);
    assert.deepEqual([identity.isAdmin, identity.disabled, identity.name], [true, false, 'admin']);
    assert.equal((await admin.patch(`/identities/${adminId}`, { tags: { owner: 'ops' } })).status, 200);
  });

  it('disables an identity for a while or until enabled, and enables it again', async () => {
    await createIdentity(ctl.running.database, { name: 'sleeper', password: 'sleeper-password' });
    const id = (await admin.get(`/identities?filter=${encodeURIComponent('name = "sleeper"')}`)).json().data[0].id;
    const now = clock.now();

    assert.equal((await admin.post(`/identities/${id}/disable`, { durationMinutes: 30 })).status, 200);
    let identity = await detail(id);
    assert.equal(identity.disabled, true);
    assert.equal(identity.disabledAt, now.toISOString());
    assert.equal(identity.disabledUntil, new Date(now.getTime() + 30 * MINUTE).toISOString());
    assert.equal((await login('sleeper', 'sleeper-password')).status, 401);
    assert.deepEqual(await names('disabled = true'), ['sleeper']);

    assert.equal((await admin.post(`/identities/${id}/enable`)).status, 200);
    identity = await detail(id);
    assert.deepEqual([identity.disabled, identity.disabledAt, identity.disabledUntil], [false, null, null]);
    assert.equal((await login('sleeper', 'sleeper-password')).status, 200);

    assert.equal((await admin.post(`/identities/${id}/disable`, { durationMinutes: 0 })).status, 200);
    identity = await detail(id);
    assert.deepEqual([identity.disabled, identity.disabledUntil], [true, null]);
    assert.equal((await login('sleeper', 'sleeper-password')).status, 401);
  });

  it('creates an identity with a one-time-token enrollment shown in its detail', async () => {
    const id = await create({ name: 'enrolling-device', enrollment: { ott: true } });
    const { ott, updb } = (await detail(id)).enrollment;
    assert.equal(updb, undefined);
    assert.ok(ott.id && ott.token && ott.jwt.split('.').length === 3);
    assert.ok(Date.parse(ott.expiresAt) > clock.now().getTime());
  });

  it('creates an identity with a password enrollment for the username given', async () => {
    const id = await create({ name: 'enrolling-user', enrollment: { updb: 'enrolling-user' } });
    const { updb } = (await detail(id)).enrollment;
    assert.equal(updb.username, 'enrolling-user');
    assert.ok(updb.token && updb.jwt);
  });

  it('leaves no identity behind when its enrollment cannot be made', async () => {
    const res = await admin.post('/identities', { name: 'half-made', type: 'User', isAdmin: false, enrollment: { updb: 'admin' } });
    assert.ok(res.status >= 400 && res.status < 500, res.text);
    assert.deepEqual(await names('name = "half-made"'), []);
  });
});
