/**
 * Services on the management API, end to end in process: create/read/list/replace/patch/delete with audit entries,
 * configs (each must exist, one per config type), encryptionRequired fixed at create, the terminator strategy, idle
 * time, role attributes and their index, the related lists, and what a delete takes with it; each refusal names the
 * field and changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { managementClient, nonAdminToken, type ManagementClient } from '../helpers/management.js';

const INTERCEPT = 'g7cIWbcGg';
const HOST = 'NH5p4FpGR';
const interceptData = (address: string) => ({ protocols: ['tcp'], addresses: [address], portRanges: [{ low: 443, high: 443 }] });

describe(`service management (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let intercept: string;
  let intercept2: string;
  let host: string;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    intercept = await created('/configs', { name: 'svc-intercept', configTypeId: INTERCEPT, data: interceptData('a.test') });
    intercept2 = await created('/configs', { name: 'svc-intercept-2', configTypeId: INTERCEPT, data: interceptData('b.test') });
    host = await created('/configs', { name: 'svc-host', configTypeId: HOST, data: { protocol: 'tcp', address: 'localhost', port: 443 } });
  });
  after(async () => ctl.close());

  async function created(path: string, body: unknown): Promise<string> {
    const res = await admin.post(path, body);
    assert.equal(res.status, 201, res.text);
    return res.json().data.id as string;
  }
  const read = async (id: string) => (await admin.get(`/services/${id}`)).json().data;
  const names = async (path: string) => ((await admin.get(path)).json().data as Array<{ name: string }>).map((item) => item.name);
  /** The audit entries of `entityId`, oldest first (the log lists the newest first). */
  const audit = async (entityId: string) =>
    ((await admin.get(`/audit-log?filter=${encodeURIComponent(`entityId = "${entityId}"`)}`)).json().data as Array<{ action: string }>).map((e) => e.action).reverse();
  /** The role attributes the policy engine's index holds for service `id`. */
  const indexed = async (id: string) =>
    (await ctl.running.database.db.selectFrom('entity_attributes').select('attribute').where('entity_type', '=', 'service').where('entity_id', '=', id).execute())
      .map((row) => row.attribute)
      .sort();
  /** Asserts a 4xx with `code` naming `field` that leaves service `id` (if given) as it was. */
  async function refused(attempt: () => Promise<{ status: number; json(): any; text: string }>, status: number, code: string, field: string, id?: string) {
    const before = id ? (await admin.get(`/services/${id}`)).text : '';
    const res = await attempt();
    assert.equal(res.status, status, res.text);
    assert.deepEqual([res.json().error.code, res.json().error.cause.field], [code, field], res.text);
    if (id) assert.equal((await admin.get(`/services/${id}`)).text, before);
  }

  it('creates a service with the defaults and reads every field back', async () => {
    const id = await created('/services', { name: 'plain' });
    const service = await read(id);
    assert.deepEqual(
      {
        configs: service.configs,
        config: service.config,
        encryptionRequired: service.encryptionRequired,
        maxIdleTimeMillis: service.maxIdleTimeMillis,
        roleAttributes: service.roleAttributes,
        terminatorStrategy: service.terminatorStrategy,
        permissions: service.permissions,
        postureQueries: service.postureQueries,
        tags: service.tags,
      },
      { configs: [], config: {}, encryptionRequired: true, maxIdleTimeMillis: 0, roleAttributes: [], terminatorStrategy: 'smartrouting', permissions: [], postureQueries: [], tags: {} },
    );
    assert.equal(service._links.self.href, `./services/${id}`);
  });

  it('creates, lists with filter, sort and paging, replaces, patches and deletes a service, auditing each change', async () => {
    const id = await created('/services', {
      name: 'web',
      encryptionRequired: false,
      configs: [intercept, host],
      roleAttributes: ['web', 'prod'],
      terminatorStrategy: 'weighted',
      maxIdleTimeMillis: 60_000,
      tags: { owner: 'ops' },
    });
    const service = await read(id);
    assert.deepEqual(service.configs, [intercept, host].sort());
    assert.deepEqual([service.encryptionRequired, service.terminatorStrategy, service.maxIdleTimeMillis, service.roleAttributes], [false, 'weighted', 60_000, ['web', 'prod']]);
    assert.deepEqual(await indexed(id), ['prod', 'web']);

    for (const n of ['b', 'a', 'c']) await created('/services', { name: `list-${n}` });
    assert.deepEqual(await names(`/services?filter=${encodeURIComponent('name contains "list-" sort by name desc')}`), ['list-c', 'list-b', 'list-a']);
    assert.deepEqual(await names(`/services?filter=${encodeURIComponent('terminatorStrategy = "weighted" and encryptionRequired = false')}`), ['web']);
    const page = (await admin.get(`/services?filter=${encodeURIComponent('name contains "list-"')}&sort=name&limit=1&offset=2`)).json();
    assert.deepEqual([page.data.map((s: { name: string }) => s.name), page.meta.pagination], [['list-c'], { limit: 1, offset: 2, totalCount: 3 }]);

    assert.equal((await admin.put(`/services/${id}`, { name: 'web', configs: [intercept2], roleAttributes: ['web'] })).status, 200);
    const replaced = await read(id);
    assert.deepEqual([replaced.configs, replaced.encryptionRequired, replaced.terminatorStrategy, replaced.tags], [[intercept2], false, 'smartrouting', {}]);
    assert.deepEqual(await indexed(id), ['web']);
    assert.equal((await admin.patch(`/services/${id}`, { roleAttributes: ['api'], encryptionRequired: false })).status, 200);
    assert.deepEqual([(await read(id)).roleAttributes, (await read(id)).configs], [['api'], [intercept2]]);
    assert.deepEqual(await indexed(id), ['api']);

    assert.equal((await admin.del(`/services/${id}`)).status, 200);
    assert.equal((await admin.get(`/services/${id}`)).status, 404);
    assert.deepEqual(await indexed(id), []);
    const links = await ctl.running.database.db.selectFrom('service_configs').selectAll().where('service_id', '=', id).execute();
    assert.deepEqual(links, []);
    assert.deepEqual(await audit(id), ['create', 'update', 'patch', 'delete']);
  });

  it('shows configs and services from each other, with list parameters, and 404 for an unknown parent', async () => {
    const a = await created('/services', { name: 'related-a', configs: [intercept, host] });
    await created('/services', { name: 'related-b', configs: [intercept] });
    assert.deepEqual(await names(`/services/${a}/configs?sort=name`), ['svc-host', 'svc-intercept']);
    assert.deepEqual(await names(`/services/${a}/configs?filter=${encodeURIComponent(`configTypeId = "${HOST}"`)}`), ['svc-host']);
    assert.deepEqual(await names(`/configs/${intercept}/services?filter=${encodeURIComponent('name contains "related-" sort by name desc')}`), ['related-b', 'related-a']);
    const page = (await admin.get(`/configs/${intercept}/services?filter=${encodeURIComponent('name contains "related-"')}&limit=1`)).json();
    assert.equal(page.meta.pagination.totalCount, 2);
    assert.equal((await admin.get('/services/nope/configs')).status, 404);
  });

  it('refuses to delete a config a service carries with 409, and deletes it once the service lets go', async () => {
    const config = await created('/configs', { name: 'held', configTypeId: INTERCEPT, data: interceptData('held.test') });
    const service = await created('/services', { name: 'holder', configs: [config] });
    const res = await admin.del(`/configs/${config}`);
    assert.deepEqual([res.status, res.json().error.code], [409, 'CAN_NOT_DELETE_REFERENCED_ENTITY']);
    assert.equal(res.json().error.message, "The config 'held' is used by service 'holder'; remove it from the service first");
    assert.deepEqual(res.json().error.cause.services, [{ id: service, name: 'holder' }]);
    assert.equal((await admin.get(`/configs/${config}`)).status, 200);
    assert.equal((await admin.patch(`/services/${service}`, { configs: [] })).status, 200);
    assert.equal((await admin.del(`/configs/${config}`)).status, 200);
  });

  describe('bad input is refused naming the field, and changes nothing', () => {
    let id: string;
    before(async () => {
      id = await created('/services', { name: 'guarded', configs: [intercept], roleAttributes: ['keep'] });
    });

    it('refuses an unknown config and two configs of one type', async () => {
      await refused(() => admin.post('/services', { name: 'x', configs: ['no-such-config'] }), 400, 'REFERENCED_ENTITY_NOT_FOUND', 'configs');
      await refused(() => admin.post('/services', { name: 'x', configs: [intercept, intercept2] }), 400, 'COULD_NOT_VALIDATE', 'configs');
      await refused(() => admin.patch(`/services/${id}`, { configs: [intercept, intercept2] }), 400, 'COULD_NOT_VALIDATE', 'configs', id);
      await refused(() => admin.put(`/services/${id}`, { name: 'guarded', configs: ['gone'] }), 400, 'REFERENCED_ENTITY_NOT_FOUND', 'configs', id);
    });

    it('refuses a change of encryptionRequired after create', async () => {
      await refused(() => admin.patch(`/services/${id}`, { encryptionRequired: false }), 400, 'COULD_NOT_VALIDATE', 'encryptionRequired', id);
      await refused(() => admin.put(`/services/${id}`, { name: 'guarded', encryptionRequired: false }), 400, 'COULD_NOT_VALIDATE', 'encryptionRequired', id);
    });

    it('refuses an unknown terminator strategy, a negative idle time and bad role attributes', async () => {
      await refused(() => admin.post('/services', { name: 'x', terminatorStrategy: 'round-robin' }), 400, 'COULD_NOT_VALIDATE', 'terminatorStrategy');
      await refused(() => admin.patch(`/services/${id}`, { terminatorStrategy: 'sticky-ish' }), 400, 'COULD_NOT_VALIDATE', 'terminatorStrategy', id);
      await refused(() => admin.post('/services', { name: 'x', maxIdleTimeMillis: -1 }), 400, 'COULD_NOT_VALIDATE', 'maxIdleTimeMillis');
      await refused(() => admin.patch(`/services/${id}`, { maxIdleTimeMillis: -5 }), 400, 'COULD_NOT_VALIDATE', 'maxIdleTimeMillis', id);
      for (const attribute of ['#web', '@id', 'all', '']) {
        await refused(() => admin.patch(`/services/${id}`, { roleAttributes: [attribute] }), 400, 'COULD_NOT_VALIDATE', 'roleAttributes[0]', id);
      }
      assert.deepEqual(await indexed(id), ['keep']);
      assert.equal((await admin.get(`/services?filter=${encodeURIComponent('name = "x"')}`)).json().data.length, 0);
    });

    it('accepts every known terminator strategy', async () => {
      for (const strategy of ['smartrouting', 'weighted', 'random', 'ha']) {
        assert.equal((await admin.patch(`/services/${id}`, { terminatorStrategy: strategy })).status, 200);
        assert.equal((await read(id)).terminatorStrategy, strategy);
      }
    });

    it('answers 404 for every operation on an unknown service', async () => {
      for (const res of [await admin.get('/services/nope'), await admin.put('/services/nope', { name: 'x' }), await admin.patch('/services/nope', {}), await admin.del('/services/nope')]) {
        assert.deepEqual([res.status, res.json().error.code], [404, 'NOT_FOUND']);
      }
    });
  });

  it('refuses non-administrators with 403 on every operation', async () => {
    const user = managementClient(ctl, await nonAdminToken(ctl, 'services-user'));
    const id = await created('/services', { name: 'admin-only' });
    for (const res of [
      await user.get('/services'),
      await user.post('/services', { name: 'sneaky' }),
      await user.get(`/services/${id}`),
      await user.put(`/services/${id}`, { name: 'sneaky' }),
      await user.patch(`/services/${id}`, { name: 'sneaky' }),
      await user.del(`/services/${id}`),
      await user.get(`/services/${id}/configs`),
      await user.get(`/configs/${intercept}/services`),
    ]) {
      assert.equal(res.status, 403, res.text);
    }
    assert.equal((await read(id)).name, 'admin-only');
    // Positive control: the same change by an administrator is made.
    assert.equal((await admin.patch(`/services/${id}`, { name: 'renamed-by-admin' })).status, 200);
    assert.equal((await read(id)).name, 'renamed-by-admin');
  });
});
