/**
 * Policy management end to end, for the three kinds: create, read (roles with the names they stand for), list with
 * filters, replace, patch, delete, each audited; malformed roles and unknown `@id`s refused naming the field; the
 * role index following every change; administrators only; a system edge router policy neither changed nor deleted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertNetwork, type AuthzNetwork } from '../helpers/authz-network.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createdId, managementClient, type ManagementClient, nonAdminToken } from '../helpers/management.js';

/** Two services, two routers and a posture check for policies to name. */
const NETWORK: AuthzNetwork = {
  identities: [],
  services: [
    { id: 'svc-web', name: 'web', roleAttributes: ['public'] },
    { id: 'svc-db', name: 'db', roleAttributes: ['internal'] },
  ],
  routers: [
    { id: 'er-1', name: 'router-1', roleAttributes: ['east'] },
    { id: 'er-2', name: 'router-2', roleAttributes: ['west'] },
  ],
  postureChecks: [{ id: 'pc-mfa', name: 'mfa-check', roleAttributes: ['strict'] }],
  servicePolicies: [],
  edgeRouterPolicies: [],
  serviceEdgeRouterPolicies: [],
};

describe(`policy management (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let alice: string;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    await insertNetwork(ctl.running.database, NETWORK);
    alice = (await admin.post('/identities', { name: 'alice', type: 'User', isAdmin: false, roleAttributes: ['staff'] })).json().data.id;
  });
  after(async () => ctl.close());

  const create = (collection: string, body: Record<string, unknown>) => createdId(admin, `/${collection}`, body);
  const read = async (collection: string, id: string) => (await admin.get(`/${collection}/${id}`)).json().data;
  const related = async (path: string) => ((await admin.get(path)).json().data as { id: string }[]).map((item) => item.id).sort();

  it('creates a service policy and reads it back with its roles named, AllOf by default', async () => {
    const id = await create('service-policies', {
      name: 'staff-dial-web',
      type: 'Dial',
      identityRoles: ['#staff', `@${alice}`],
      serviceRoles: ['@svc-web'],
      postureCheckRoles: ['#strict'],
      tags: { team: 'ops' },
    });
    const policy = await read('service-policies', id);
    assert.deepEqual([policy.name, policy.type, policy.semantic, policy.tags], ['staff-dial-web', 'Dial', 'AllOf', { team: 'ops' }]);
    assert.deepEqual(policy.identityRolesDisplay, [
      { role: '#staff', name: '#staff' },
      { role: `@${alice}`, name: '@alice' },
    ]);
    assert.deepEqual(policy.serviceRolesDisplay, [{ role: '@svc-web', name: '@web' }]);
    assert.deepEqual(policy.postureCheckRolesDisplay, [{ role: '#strict', name: '#strict' }]);
    assert.deepEqual(policy._links, { self: { href: `./service-policies/${id}` } });
    assert.deepEqual(await related(`/identities/${alice}/services?policyType=dial`), ['svc-web']);
    assert.deepEqual(await related(`/service-policies/${id}/posture-checks`), ['pc-mfa']);
  });

  it('lists policies with filters, sort and paging', async () => {
    for (const name of ['list-b', 'list-a']) await create('service-policies', { name, type: 'Bind', semantic: 'AnyOf' });
    const names = async (filter: string) =>
      ((await admin.get(`/service-policies?filter=${encodeURIComponent(filter)}`)).json().data as { name: string }[]).map((p) => p.name);
    assert.deepEqual(await names('type = "Bind" and name contains "list-" sort by name'), ['list-a', 'list-b']);
    assert.deepEqual(await names('semantic = "AnyOf" sort by name desc limit 1'), ['list-b']);
  });

  it('replaces with PUT (absent lists become empty) and patches only what is given, the index following each change', async () => {
    const id = await create('service-policies', { name: 'changing', type: 'Bind', identityRoles: [`@${alice}`], serviceRoles: ['#internal'] });
    assert.deepEqual(await related(`/identities/${alice}/services?policyType=bind`), ['svc-db']);
    assert.equal((await admin.patch(`/service-policies/${id}`, { serviceRoles: ['#public', '#internal'], semantic: 'AnyOf' })).status, 200);
    assert.deepEqual(await related(`/identities/${alice}/services?policyType=bind`), ['svc-db', 'svc-web']);
    const patched = await read('service-policies', id);
    assert.deepEqual([patched.type, patched.identityRoles, patched.semantic], ['Bind', [`@${alice}`], 'AnyOf']);
    assert.equal((await admin.put(`/service-policies/${id}`, { name: 'changed', type: 'Dial' })).status, 200);
    const replaced = await read('service-policies', id);
    assert.deepEqual([replaced.name, replaced.type, replaced.semantic, replaced.identityRoles, replaced.serviceRoles], ['changed', 'Dial', 'AllOf', [], []]);
    assert.deepEqual(await related(`/identities/${alice}/services?policyType=bind`), []);
    assert.equal((await admin.del(`/service-policies/${id}`)).status, 200);
    assert.equal((await admin.get(`/service-policies/${id}`)).status, 404);
    const rows = await ctl.running.database.db.selectFrom('policy_roles').select('policy_id').where('policy_id', '=', id).execute();
    assert.deepEqual(rows, []);
  });

  it('refuses malformed roles naming the list and the index', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ identityRoles: ['#ok', '#fine', '#'] }, 'identityRoles[2]'],
      [{ identityRoles: ['@'] }, 'identityRoles[0]'],
      [{ serviceRoles: [''] }, 'serviceRoles[0]'],
      [{ serviceRoles: ['#a', '#all'] }, 'serviceRoles[1]'],
      [{ postureCheckRoles: ['#x', '#x'] }, 'postureCheckRoles[1]'],
      [{ serviceRoles: ['plain'] }, 'serviceRoles[0]'],
    ];
    for (const [roles, field] of cases) {
      const res = await admin.post('/service-policies', { name: `bad-${field}`, type: 'Dial', ...roles });
      assert.deepEqual([res.status, res.json().error.code, res.json().error.cause.field], [400, 'COULD_NOT_VALIDATE', field], JSON.stringify(roles));
    }
    const erp = await admin.post('/edge-router-policies', { name: 'bad-erp', edgeRouterRoles: ['#all', '#east'] });
    assert.deepEqual([erp.status, erp.json().error.cause.field], [400, 'edgeRouterRoles[0]']);
    assert.equal((await admin.post('/service-policies', { name: 'bad-type', type: 'Connect' })).status, 400);
    assert.equal((await admin.post('/service-policies', { name: 'bad-semantic', type: 'Dial', semantic: 'OneOf' })).status, 400);
  });

  it('refuses @ids that name no entity of the list type, naming the list', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['service-policies', { type: 'Dial', identityRoles: ['@nobody'] }, 'identityRoles'],
      ['service-policies', { type: 'Dial', serviceRoles: ['@er-1'] }, 'serviceRoles'],
      ['service-policies', { type: 'Dial', postureCheckRoles: ['@nothing'] }, 'postureCheckRoles'],
      ['edge-router-policies', { edgeRouterRoles: ['@svc-web'] }, 'edgeRouterRoles'],
      ['service-edge-router-policies', { serviceRoles: ['@gone'] }, 'serviceRoles'],
    ];
    for (const [collection, body, field] of cases) {
      const res = await admin.post(`/${collection}`, { name: `unknown-${field}-${collection}`, ...body });
      assert.deepEqual([res.status, res.json().error.code, res.json().error.cause.field], [400, 'REFERENCED_ENTITY_NOT_FOUND', field], `${collection} ${JSON.stringify(body)}`);
    }
  });

  it('manages edge router and service edge router policies, and lists what they select', async () => {
    const erp = await create('edge-router-policies', { name: 'staff-east', identityRoles: ['#staff'], edgeRouterRoles: ['#east', '@er-2'], semantic: 'AnyOf' });
    const serp = await create('service-edge-router-policies', { name: 'web-east', serviceRoles: ['@svc-web'], edgeRouterRoles: ['#east'] });
    const detail = await read('edge-router-policies', erp);
    assert.deepEqual([detail.isSystem, detail.edgeRouterRolesDisplay], [false, [{ role: '#east', name: '#east' }, { role: '@er-2', name: '@router-2' }]]);
    assert.deepEqual((await read('service-edge-router-policies', serp)).serviceRolesDisplay, [{ role: '@svc-web', name: '@web' }]);
    assert.deepEqual(await related(`/edge-router-policies/${erp}/edge-routers`), ['er-1', 'er-2']);
    assert.deepEqual(await related(`/edge-router-policies/${erp}/identities`), [alice]);
    assert.deepEqual(await related(`/identities/${alice}/edge-routers`), ['er-1', 'er-2']);
    assert.deepEqual(await related(`/service-edge-router-policies/${serp}/services`), ['svc-web']);
    assert.deepEqual(await related(`/services/svc-web/edge-routers`), ['er-1']);
    assert.deepEqual(await related(`/edge-routers/er-1/service-edge-router-policies`), [serp]);
    assert.deepEqual(await related(`/identities/${alice}/edge-router-policies`), [erp]);
    assert.equal((await admin.patch(`/service-edge-router-policies/${serp}`, { edgeRouterRoles: ['#west'] })).status, 200);
    assert.deepEqual(await related(`/services/svc-web/edge-routers`), ['er-2']);
    const advice = (await admin.get(`/identities/${alice}/policy-advice/svc-web`)).json().data;
    assert.deepEqual([advice.isDialAllowed, advice.commonRouters.map((r: { id: string }) => r.id)], [true, ['er-2']]);
    assert.ok(advice.reasons.some((reason: string) => /mfa-check/.test(reason)), advice.reasons.join('\n'));
    assert.ok(advice.reasons.some((reason: string) => /online/.test(reason)), advice.reasons.join('\n'));
    for (const [collection, id] of [['edge-router-policies', erp], ['service-edge-router-policies', serp]] as const) {
      assert.equal((await admin.del(`/${collection}/${id}`)).status, 200);
    }
    assert.deepEqual(await related(`/identities/${alice}/edge-routers`), []);
  });

  it('records every change in the audit log', async () => {
    const id = await create('service-edge-router-policies', { name: 'audited', serviceRoles: ['#public'], edgeRouterRoles: ['#all'] });
    await admin.patch(`/service-edge-router-policies/${id}`, { name: 'audited-2' });
    await admin.del(`/service-edge-router-policies/${id}`);
    const entries = (await admin.get(`/audit-log?filter=${encodeURIComponent(`entityId = "${id}"`)}`)).json().data as { action: string; entityType: string; details: any }[];
    assert.deepEqual(entries.map((e) => e.action).sort(), ['create', 'delete', 'patch']);
    assert.ok(entries.every((e) => e.entityType === 'service-edge-router-policy'));
    assert.deepEqual(entries.find((e) => e.action === 'create')!.details.edgeRouterRoles, ['#all']);
  });

  it('neither changes nor deletes a system edge router policy', async () => {
    const now = new Date().toISOString();
    await ctl.running.database.db
      .insertInto('edge_router_policies')
      .values({ id: 'sys-erp', name: 'system-er-1', semantic: 'AnyOf', identity_roles: '[]', edge_router_roles: '["@er-1"]', is_system: true, tags: '{}', created_at: now, updated_at: now })
      .execute();
    const put = await admin.put('/edge-router-policies/sys-erp', { name: 'renamed' });
    const patch = await admin.patch('/edge-router-policies/sys-erp', { identityRoles: ['#all'] });
    const del = await admin.del('/edge-router-policies/sys-erp');
    assert.deepEqual([put.status, put.json().error.code], [400, 'ENTITY_CAN_NOT_BE_UPDATED']);
    assert.deepEqual([patch.status, patch.json().error.code], [400, 'ENTITY_CAN_NOT_BE_UPDATED']);
    assert.deepEqual([del.status, del.json().error.code], [400, 'ENTITY_CAN_NOT_BE_DELETED']);
    const policy = await read('edge-router-policies', 'sys-erp');
    assert.deepEqual([policy.name, policy.isSystem], ['system-er-1', true]);
  });

  it('answers 404 naming the id on every operation of an unknown policy', async () => {
    for (const collection of ['service-policies', 'edge-router-policies', 'service-edge-router-policies']) {
      for (const res of [await admin.get(`/${collection}/nope`), await admin.patch(`/${collection}/nope`, {}), await admin.del(`/${collection}/nope`)]) {
        assert.deepEqual([res.status, res.json().error.code], [404, 'NOT_FOUND'], collection);
      }
    }
  });

  it('serves policies and their lists to administrators only', async () => {
    const user = managementClient(ctl, await nonAdminToken(ctl, 'not-an-admin'));
    for (const path of ['/service-policies', '/edge-router-policies', '/service-edge-router-policies', `/identities/${alice}/services`, `/identities/${alice}/policy-advice/svc-web`]) {
      assert.equal((await user.get(path)).status, 403, path);
    }
    assert.equal((await user.post('/service-policies', { name: 'sneaky', type: 'Dial', identityRoles: ['#all'], serviceRoles: ['#all'] })).status, 403);
  });
});
