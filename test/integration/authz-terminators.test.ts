/**
 * Terminator management end to end (issue 14): create, read, list (all, and one service's) with filter/sort/paging,
 * replace, patch, delete, audit entries; references to services and routers that must exist; the instance secret
 * never shown; and a service's or router's delete taking its terminators with it, on both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createdId, managementClient, type ManagementClient, nonAdminToken } from '../helpers/management.js';

describe(`terminator management (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let router: string;
  let service: string;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    router = await newRouter('term-router');
    service = await newService('term-service');
  });
  after(async () => ctl.close());

  /** A service row straight in the store: terminators need only that it exists. */
  async function newService(name: string): Promise<string> {
    const now = new Date().toISOString();
    const id = `svc-${name}`;
    await ctl.running.database.db.insertInto('services').values({ id, name, tags: '{}', role_attributes: '[]', encryption_required: true, max_idle_time_millis: 0, terminator_strategy: 'smartrouting', created_at: now, updated_at: now }).execute();
    return id;
  }
  async function newRouter(name: string): Promise<string> {
    const res = await admin.post('/edge-routers', { name });
    assert.equal(res.status, 201, res.text);
    return res.json().data.id;
  }
  const create = (body: Record<string, unknown>) => createdId(admin, '/terminators', body);
  const read = async (id: string) => (await admin.get(`/terminators/${id}`)).json().data;
  const count = async () => (await admin.get('/terminators?limit=1')).json().meta.pagination.totalCount as number;
  const body = (extra: Record<string, unknown> = {}) => ({ service, router, binding: 'transport', address: 'tcp:10.0.0.1:443', ...extra });

  it('creates a terminator and reads it with its service and router named, never its secret', async () => {
    const id = await create(body({ identity: 'instance-1', identitySecret: 'c2VjcmV0', cost: 12, precedence: 'required', tags: { a: 'b' } }));
    const t = await read(id);
    assert.deepEqual(
      [t.serviceId, t.service.id, t.service.name, t.service.entity, t.routerId, t.router.name, t.router.entity],
      [service, service, 'term-service', 'services', router, 'term-router', 'edge-routers'],
    );
    assert.deepEqual([t.binding, t.address, t.identity, t.cost, t.dynamicCost, t.precedence, t.tags], ['transport', 'tcp:10.0.0.1:443', 'instance-1', 12, 12, 'required', { a: 'b' }]);
    assert.deepEqual(t._links, { self: { href: `./terminators/${id}` } });
    assert.equal(t.identitySecret, undefined);
    assert.doesNotMatch(admin.seen.join('\n'), /c2VjcmV0/);
  });

  it('defaults cost to 0, precedence to default and identity to empty', async () => {
    const t = await read(await create(body()));
    assert.deepEqual([t.cost, t.precedence, t.identity, t.tags], [0, 'default', '', {}]);
  });

  it('lists terminators, and those of one service, with filters, sort and paging', async () => {
    const other = await newService('term-other');
    for (const cost of [30, 10, 20]) await create(body({ service: other, cost }));
    const costs = async (path: string) => (await admin.get(path)).json().data.map((t: { cost: number }) => t.cost);
    assert.deepEqual(await costs(`/terminators?filter=${encodeURIComponent(`service = "${other}" sort by cost desc`)}`), [30, 20, 10]);
    assert.deepEqual(await costs(`/services/${other}/terminators?sort=cost`), [10, 20, 30]);
    assert.deepEqual(await costs(`/services/${other}/terminators?filter=${encodeURIComponent('cost > 10')}&sort=cost`), [20, 30]);
    const page = (await admin.get(`/services/${other}/terminators?sort=cost&limit=1&offset=1`)).json();
    assert.deepEqual([page.data.map((t: { cost: number }) => t.cost), page.meta.pagination], [[20], { limit: 1, offset: 1, totalCount: 3 }]);
    assert.equal((await admin.get('/services/nope/terminators')).status, 404);
  });

  it('replaces a terminator with PUT (identity kept) and patches only the given fields', async () => {
    const id = await create(body({ identity: 'inst', cost: 5, precedence: 'failed' }));
    const otherRouter = await newRouter('term-router-2');
    assert.equal((await admin.put(`/terminators/${id}`, body({ router: otherRouter, address: 'tcp:10.0.0.2:80' }))).status, 200);
    let t = await read(id);
    assert.deepEqual([t.routerId, t.address, t.cost, t.precedence, t.identity], [otherRouter, 'tcp:10.0.0.2:80', 0, 'default', 'inst']);
    assert.equal((await admin.patch(`/terminators/${id}`, { cost: 65535 })).status, 200);
    t = await read(id);
    assert.deepEqual([t.routerId, t.cost], [otherRouter, 65535]);
  });

  it('deletes a terminator and audits create, change and delete without the secret', async () => {
    const id = await create(body({ identitySecret: 'aGlkZGVu' }));
    await admin.patch(`/terminators/${id}`, { precedence: 'failed' });
    assert.deepEqual((await admin.del(`/terminators/${id}`)).json(), { data: {}, meta: {} });
    assert.equal((await admin.get(`/terminators/${id}`)).status, 404);
    const res = await admin.get(`/audit-log?filter=${encodeURIComponent(`entityId = "${id}" sort by createdAt asc`)}`);
    assert.deepEqual(res.json().data.map((e: { action: string; entityType: string }) => [e.action, e.entityType]), [
      ['create', 'terminator'],
      ['patch', 'terminator'],
      ['delete', 'terminator'],
    ]);
    assert.doesNotMatch(res.text, /aGlkZGVu/);
  });

  it('refuses every bad input naming the field, with nothing stored or changed', async () => {
    const before = await count();
    const bad: Array<[Record<string, unknown>, string, string]> = [
      [body({ service: 'no-such-service' }), 'service', 'REFERENCED_ENTITY_NOT_FOUND'],
      [body({ router: 'no-such-router' }), 'router', 'REFERENCED_ENTITY_NOT_FOUND'],
      [body({ cost: -1 }), 'cost', 'COULD_NOT_VALIDATE'],
      [body({ cost: 65536 }), 'cost', 'COULD_NOT_VALIDATE'],
      [body({ precedence: 'urgent' }), 'precedence', 'COULD_NOT_VALIDATE'],
      [body({ binding: '' }), 'binding', 'COULD_NOT_VALIDATE'],
      [body({ address: '  ' }), 'address', 'COULD_NOT_VALIDATE'],
      [body({ identitySecret: 'not base64!' }), 'identitySecret', 'COULD_NOT_VALIDATE'],
      [body({ name: 'terminators-have-none' }), 'name', 'COULD_NOT_VALIDATE'],
      [{ service, router, binding: 'transport' }, 'address', 'COULD_NOT_VALIDATE'],
    ];
    for (const [input, field, code] of bad) {
      const res = await admin.post('/terminators', input);
      assert.deepEqual([res.status, res.json().error.code, res.json().error.cause?.field], [400, code, field], `${JSON.stringify(input)}: ${res.text}`);
    }
    assert.equal(await count(), before);
    const id = await create(body({ cost: 4 }));
    for (const [patch, field] of [[{ service: 'gone' }, 'service'], [{ router: 'gone' }, 'router'], [{ cost: -3 }, 'cost'], [{ identity: 'x' }, 'identity']] as const) {
      const res = await admin.patch(`/terminators/${id}`, patch);
      assert.deepEqual([res.status, res.json().error.cause?.field], [400, field], JSON.stringify(patch));
    }
    const t = await read(id);
    assert.deepEqual([t.serviceId, t.routerId, t.cost], [service, router, 4]);
  });

  it("removes a service's and a router's terminators with them", async () => {
    const doomedService = await newService('term-doomed');
    const doomedRouter = await newRouter('term-doomed-router');
    const ofService = await create(body({ service: doomedService }));
    const ofRouter = await create(body({ router: doomedRouter }));
    const kept = await create(body());
    await ctl.running.database.db.deleteFrom('services').where('id', '=', doomedService).execute();
    assert.equal((await admin.del(`/edge-routers/${doomedRouter}`)).status, 200);
    assert.deepEqual(
      [(await admin.get(`/terminators/${ofService}`)).status, (await admin.get(`/terminators/${ofRouter}`)).status, (await admin.get(`/terminators/${kept}`)).status],
      [404, 404, 200],
    );
  });

  it('answers 404 for an unknown terminator and 403 to a non-administrator', async () => {
    for (const res of [await admin.get('/terminators/nope'), await admin.put('/terminators/nope', body()), await admin.patch('/terminators/nope', {}), await admin.del('/terminators/nope')]) {
      assert.deepEqual([res.status, res.json().error.code], [404, 'NOT_FOUND']);
    }
    const user = managementClient(ctl, await nonAdminToken(ctl, 'terminators-user'));
    for (const res of [await user.get('/terminators'), await user.post('/terminators', body()), await user.get(`/services/${service}/terminators`)]) assert.equal(res.status, 403);
  });
});
