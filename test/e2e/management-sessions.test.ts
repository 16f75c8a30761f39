/**
 * The Management API's `/sessions` (issue 45, for the console's sessions screen): administrators list every
 * identity's sessions with the service's and identity's names, filtered by the store, and end one whoever holds it
 * (audited); the holder no longer has it. An unknown id is 404 naming it, and a non-administrator is refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { createdId, managementClient, nonAdminToken, type ManagementClient } from '../helpers/management.js';

describe(`management sessions: every identity's, listed and ended by administrators (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  const people: Record<string, { id: string; token: string }> = {};
  let crm: string;

  const login = async (name: string) =>
    (await ctl.fetch("/edge/client/v1/authenticate?method=password", { method: "POST", body: { username: name, password: `${name}-password` } })).json().data.token as string;
  const open = async (name: string, type: 'Dial' | 'Bind' = 'Dial') => {
    const res = await ctl.fetch('/edge/client/v1/sessions', { method: 'POST', headers: { 'svc-session': people[name]!.token }, body: { serviceId: crm, type } });
    assert.equal(res.status, 201, res.text);
    return res.json().data.id as string;
  };
  const listed = async (query = '') => (await admin.get(`/sessions${query}`)).json();

  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    for (const name of ['alice', 'bobby']) {
      const { id } = await createIdentity(ctl.running.database, { name, password: `${name}-password` });
      assert.equal((await admin.patch(`/identities/${id}`, { roleAttributes: ['staff'] })).status, 200);
      people[name] = { id, token: await login(name) };
    }
    crm = await createdId(admin, '/services', { name: 'crm', roleAttributes: ['crm'] });
    await createdId(admin, '/service-policies', { name: 'staff-dial-crm', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#staff'], serviceRoles: ['#crm'] });
    await createdId(admin, '/service-policies', { name: 'staff-bind-crm', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#staff'], serviceRoles: ['#crm'] });
    await createdId(admin, '/edge-router-policies', { name: 'staff-routers', semantic: 'AnyOf', identityRoles: ['#staff'], edgeRouterRoles: ['#all'] });
    await createdId(admin, '/service-edge-router-policies', { name: 'crm-routers', semantic: 'AnyOf', serviceRoles: ['#crm'], edgeRouterRoles: ['#all'] });
    await createdId(admin, '/edge-routers', { name: 'er-1' });
  });
  after(async () => {
    await ctl.close();
  });

  it("lists every identity's sessions with service and identity names, filtered and paged by the store", async () => {
    const aliceDial = await open('alice');
    await open('alice', 'Bind');
    const bobDial = await open('bobby');
    const all = await listed('?limit=10&sort=createdAt%20asc');
    assert.equal(all.meta.pagination.totalCount, 3);
    const alice = all.data.find((session: any) => session.id === aliceDial);
    assert.equal(alice.service.name, 'crm');
    assert.equal(alice.identity.name, 'alice');
    assert.equal(alice.identityId, people.alice!.id);
    assert.equal(alice.type, 'Dial');
    assert.equal('token' in alice, false, 'an administrator never sees a session token');

    const bobs = await listed(`?filter=${encodeURIComponent(`identityId = "${people.bobby!.id}"`)}&limit=10`);
    assert.deepEqual(bobs.data.map((session: any) => session.id), [bobDial]);
    const binds = await listed(`?filter=${encodeURIComponent('type = "Bind"')}&limit=1`);
    assert.equal(binds.meta.pagination.totalCount, 1);
    assert.equal(binds.data[0].identity.name, 'alice');
  });

  it('ends a session whoever holds it: gone from the list and from its holder, and audited', async () => {
    const page = await listed(`?filter=${encodeURIComponent(`identityId = "${people.bobby!.id}"`)}&limit=10`);
    const id = page.data[0].id as string;
    const ended = await admin.del(`/sessions/${id}`);
    assert.equal(ended.status, 200, ended.text);
    assert.equal((await listed(`?filter=${encodeURIComponent(`id = "${id}"`)}&limit=10`)).meta.pagination.totalCount, 0);
    const holder = await ctl.fetch(`/edge/client/v1/sessions/${id}`, { headers: { 'svc-session': people.bobby!.token } });
    assert.equal(holder.status, 404, holder.text);
    const trail = (await admin.get(`/audit-log?filter=${encodeURIComponent(`entityId = "${id}"`)}&limit=5`)).json().data;
    assert.equal(trail.length, 1);
    assert.equal(trail[0].action, 'delete');
    assert.equal(trail[0].entityType, 'session');
    assert.equal(trail[0].actorName, 'admin');
  });

  it('answers 404 naming an unknown id, and ends nothing', async () => {
    const before = (await listed('?limit=1')).meta.pagination.totalCount;
    const res = await admin.del('/sessions/no-such-session');
    assert.equal(res.status, 404);
    assert.equal(res.json().error.cause.field, 'id');
    assert.match(res.json().error.message, /no-such-session/);
    assert.equal((await listed('?limit=1')).meta.pagination.totalCount, before);
  });

  it('refuses a non-administrator both the list and the end, and ends nothing', async () => {
    const plain = managementClient(ctl, await nonAdminToken(ctl));
    assert.equal((await plain.get('/sessions?limit=10')).status, 403);
    const id = (await listed('?limit=1')).data[0].id as string;
    assert.equal((await plain.del(`/sessions/${id}`)).status, 403);
    assert.equal((await listed(`?filter=${encodeURIComponent(`id = "${id}"`)}&limit=1`)).meta.pagination.totalCount, 1);
  });

  it('refuses a filter on a field sessions do not have, naming it', async () => {
    const res = await admin.get(`/sessions?filter=${encodeURIComponent('password = "x"')}`);
    assert.equal(res.status, 400, res.text);
    assert.match(res.text, /password/);
  });
});
