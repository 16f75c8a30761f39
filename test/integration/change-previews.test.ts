/**
 * The change preview (`POST /change-previews`, issue 45): before a service policy is created, changed or deleted, or
 * an identity's role attributes change, who gains and who loses which service and how; a pair another policy already
 * grants is neither; nothing is saved; bad requests are refused naming the field.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createdId, managementClient, nonAdminToken, type ManagementClient } from '../helpers/management.js';

interface Pair {
  identity: { name: string };
  service: { name: string };
  permission: string;
}
const pairs = (items: Pair[]) => items.map((item) => `${item.identity.name} ${item.permission} ${item.service.name}`).sort();

describe(`change previews (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let aliceId: string;
  let policyId: string;

  const preview = async (body: object) => {
    const res = await admin.post('/change-previews', body);
    assert.equal(res.status, 200, res.text);
    return res.json().data as { gains: { count: number; countIsLowerBound: boolean; items: Pair[] }; losses: { count: number; countIsLowerBound: boolean; items: Pair[] } };
  };

  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    aliceId = await createdId(admin, '/identities', { name: 'alice', type: 'User', isAdmin: false, roleAttributes: ['eng'] });
    await createdId(admin, '/identities', { name: 'bob', type: 'User', isAdmin: false, roleAttributes: ['eng', 'ops'] });
    await createdId(admin, '/identities', { name: 'carol', type: 'User', isAdmin: false, roleAttributes: ['sales'] });
    await createdId(admin, '/services', { name: 'wiki', roleAttributes: ['docs'] });
    await createdId(admin, '/services', { name: 'grafana', roleAttributes: ['ops'] });
    // bob may already dial grafana: a policy granting it again gains nothing for him there.
    await createdId(admin, '/service-policies', { name: 'ops-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#ops'], serviceRoles: ['#ops'] });
    policyId = await createdId(admin, '/service-policies', { name: 'eng-docs', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#eng'], serviceRoles: ['#docs'] });
  });
  after(async () => ctl?.close());

  it('previews a new policy: every pair it would grant that nothing grants now, and nothing saved', async () => {
    const { gains, losses } = await preview({ entity: 'service-policies', change: { name: 'eng-ops', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#eng'], serviceRoles: ['#ops'] } });
    assert.deepEqual(pairs(gains.items), ['alice dial grafana']);
    assert.equal(gains.count, 1);
    assert.equal(gains.countIsLowerBound, false);
    assert.equal(losses.count, 0);
    const list = await admin.get('/service-policies?filter=name%20%3D%20%22eng-ops%22');
    assert.equal(list.json().meta.pagination.totalCount, 0, 'nothing was saved');
  });

  it('previews a change of roles: gains and losses at once', async () => {
    const { gains, losses } = await preview({ entity: 'service-policies', id: policyId, change: { identityRoles: ['#sales'] } });
    assert.deepEqual(pairs(gains.items), ['carol dial wiki']);
    assert.deepEqual(pairs(losses.items), ['alice dial wiki', 'bob dial wiki']);
    assert.equal(losses.count, 2);
  });

  it('previews a delete: what only this policy grants is lost', async () => {
    const { gains, losses } = await preview({ entity: 'service-policies', id: policyId, delete: true });
    assert.equal(gains.count, 0);
    assert.deepEqual(pairs(losses.items), ['alice dial wiki', 'bob dial wiki']);
    assert.equal((await admin.get(`/service-policies/${policyId}`)).status, 200, 'still there');
  });

  it('previews router policies: which identities and services gain or lose which edge routers', async () => {
    const routerId = await createdId(admin, '/edge-routers', { name: 'edge-1', roleAttributes: ['edge'] });
    const erp = await preview({ entity: 'edge-router-policies', change: { name: 'eng-edge', semantic: 'AnyOf', identityRoles: ['#eng'], edgeRouterRoles: ['#edge'] } });
    assert.deepEqual(erp.gains.items.map((item: any) => `${item.identity.name} ${item.edgeRouter.name}`).sort(), ['alice edge-1', 'bob edge-1']);
    const serpId = await createdId(admin, '/service-edge-router-policies', { name: 'docs-edge', semantic: 'AnyOf', serviceRoles: ['#docs'], edgeRouterRoles: ['#edge'] });
    const serp = await preview({ entity: 'service-edge-router-policies', id: serpId, delete: true });
    assert.deepEqual(serp.losses.items.map((item: any) => `${item.service.name} ${item.edgeRouter.name}`), ['wiki edge-1']);
    assert.equal(serp.gains.count, 0);
    assert.ok(routerId);
  });

  it("previews an identity's new role attributes", async () => {
    const { gains, losses } = await preview({ entity: 'identities', id: aliceId, change: { roleAttributes: ['ops'] } });
    assert.deepEqual(pairs(gains.items), ['alice dial grafana']);
    assert.deepEqual(pairs(losses.items), ['alice dial wiki']);
    const alice = (await admin.get(`/identities/${aliceId}`)).json().data;
    assert.deepEqual(alice.roleAttributes, ['eng'], 'nothing was saved');
  });

  it('refuses what it cannot preview, naming the field', async () => {
    const cases: [object, number, RegExp][] = [
      [{ entity: 'configs', id: 'x' }, 400, /entity must be one of service-policies, edge-router-policies, service-edge-router-policies, identities, services, edge-routers, posture-checks/],
      [{ entity: 'service-policies', change: { name: 'n', identityRoles: ['#a'] } }, 400, /change.type must be 'Dial' or 'Bind'/],
      [{ entity: 'service-policies', change: { type: 'Dial', identityRoles: ['bad role'] } }, 400, /change.identityRoles\[0\]/],
      [{ entity: 'service-policies', change: { type: 'Dial', semantic: 'Most' } }, 400, /change.semantic must be one of AllOf, AnyOf/],
      [{ entity: 'service-policies', delete: true }, 400, /id is required to preview a delete/],
      [{ entity: 'service-policies', id: 'missing', delete: true }, 404, /missing/],
      [{ entity: 'identities', id: aliceId, change: { roleAttributes: 'ops' } }, 400, /change.roleAttributes must be a list/],
      [{ entity: 'service-policies', change: [1] }, 400, /change must be an object/],
      [{ entity: 'service-policies', extra: 1 }, 400, /extra/],
    ];
    for (const [body, status, message] of cases) {
      const res = await admin.post('/change-previews', body);
      assert.equal(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.text, message, JSON.stringify(body));
    }
    const plain = managementClient(ctl, await nonAdminToken(ctl, 'preview-plain'));
    assert.equal((await plain.post('/change-previews', { entity: 'identities', id: aliceId, change: { roleAttributes: [] } })).status, 403);
  });
});
