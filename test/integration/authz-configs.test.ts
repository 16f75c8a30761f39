/**
 * Config types and configs on the management API, end to end in process: the well-known types, create/read/list/
 * replace/patch/delete with audit entries, schemas that are not JSON Schemas, data that breaks its type's schema, the
 * type fixed at create, and what is still referenced; each refusal names the field and changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { managementClient, nonAdminToken, type ManagementClient } from '../helpers/management.js';

const PORT_SCHEMA = {
  type: 'object',
  properties: { hostname: { type: 'string' }, port: { type: 'integer', minimum: 1, maximum: 65535 } },
  required: ['hostname', 'port'],
  additionalProperties: false,
};

describe(`config types and configs (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
  });
  after(async () => ctl.close());

  const created = async (path: string, body: unknown) => {
    const res = await admin.post(path, body);
    assert.equal(res.status, 201, res.text);
    return res.json().data.id as string;
  };
  const read = async (path: string) => (await admin.get(path)).json().data;
  const names = async (path: string) => ((await admin.get(path)).json().data as Array<{ name: string }>).map((item) => item.name);
  /** The audit entries of `entityId`, oldest first (the log lists the newest first). */
  const audit = async (entityId: string) =>
    ((await admin.get(`/audit-log?filter=${encodeURIComponent(`entityId = "${entityId}"`)}`)).json().data as Array<{ action: string; entityType: string }>).map(
      (entry) => `${entry.entityType}:${entry.action}`,
    ).reverse();
  /** Asserts a 4xx with `code` naming `field`, and that `path` reads the same after as before. */
  const refused = async (attempt: Promise<{ status: number; json(): any; text: string }>, status: number, code: string, field: string | RegExp) => {
    const res = await attempt;
    assert.equal(res.status, status, res.text);
    assert.equal(res.json().error.code, code, res.text);
    if (typeof field === 'string') assert.equal(res.json().error.cause.field, field, res.text);
    else assert.match(res.json().error.cause.field, field);
    return res.json().error;
  };
  const unchanged = async (path: string, work: () => Promise<unknown>) => {
    const before = (await admin.get(path)).text;
    await work();
    assert.equal((await admin.get(path)).text, before);
  };

  describe('config types', () => {
    it('lists the well-known types clients ask for by name, with their reference ids', async () => {
      const wellKnown = await names(`/config-types?filter=${encodeURIComponent('name != "x" sort by name')}&limit=100`);
      for (const name of ['host.v1', 'host.v2', 'intercept.v1', 'ziti-tunneler-client.v1', 'ziti-tunneler-server.v1']) assert.ok(wellKnown.includes(name), name);
      const intercept = (await admin.get(`/config-types?filter=${encodeURIComponent('name = "intercept.v1"')}`)).json().data[0];
      assert.equal(intercept.id, 'g7cIWbcGg');
      assert.equal(intercept.schema.type, 'object');
      assert.deepEqual(intercept.schema.required, ['protocols', 'addresses', 'portRanges']);
      assert.equal((await read('/config-types/NH5p4FpGR')).name, 'host.v1');
    });

    it('creates, reads, lists with filter, sort and paging, replaces, patches and deletes a type, auditing each change', async () => {
      const id = await created('/config-types', { name: 'port.v1', schema: PORT_SCHEMA, tags: { team: 'net' } });
      const type = await read(`/config-types/${id}`);
      assert.deepEqual([type.name, type.schema, type.tags, type._links.self.href], ['port.v1', PORT_SCHEMA, { team: 'net' }, `./config-types/${id}`]);
      for (const n of ['b', 'a', 'c']) await created('/config-types', { name: `paged-${n}.v1` });
      assert.deepEqual(await names(`/config-types?filter=${encodeURIComponent('name contains "paged-" sort by name desc')}`), ['paged-c.v1', 'paged-b.v1', 'paged-a.v1']);
      const page = (await admin.get(`/config-types?filter=${encodeURIComponent('name contains "paged-"')}&sort=name&limit=1&offset=1`)).json();
      assert.deepEqual([page.data.map((t: { name: string }) => t.name), page.meta.pagination], [['paged-b.v1'], { limit: 1, offset: 1, totalCount: 3 }]);

      assert.equal((await admin.put(`/config-types/${id}`, { name: 'port.v2', schema: PORT_SCHEMA })).status, 200);
      assert.deepEqual([(await read(`/config-types/${id}`)).name, (await read(`/config-types/${id}`)).tags], ['port.v2', {}]);
      assert.equal((await admin.patch(`/config-types/${id}`, { tags: { a: true } })).status, 200);
      assert.deepEqual((await read(`/config-types/${id}`)).schema, PORT_SCHEMA);
      const plain = await read(`/config-types/${await created('/config-types', { name: 'anything.v1' })}`);
      assert.deepEqual(plain.schema, { type: 'object' });
      assert.equal((await admin.del(`/config-types/${id}`)).status, 200);
      assert.equal((await admin.get(`/config-types/${id}`)).status, 404);
      assert.deepEqual(await audit(id), ['config-type:create', 'config-type:update', 'config-type:patch', 'config-type:delete']);
    });

    it('refuses a schema that is not a JSON Schema of an object, naming schema, and changes nothing', async () => {
      const before = (await admin.get('/config-types?limit=500')).json().meta.pagination.totalCount;
      await refused(admin.post('/config-types', { name: 'bad.v1', schema: { type: 'array' } }), 400, 'COULD_NOT_VALIDATE', 'schema');
      await refused(admin.post('/config-types', { name: 'bad.v1', schema: { type: 'object', properties: { a: { type: 'nope' } } } }), 400, 'COULD_NOT_VALIDATE', 'schema');
      await refused(admin.post('/config-types', { name: 'bad.v1', schema: { type: 'object', properties: { a: { type: 'string', pattern: '(' } } } }), 400, 'COULD_NOT_VALIDATE', 'schema');
      await refused(admin.post('/config-types', { name: 'bad.v1', schema: { type: 'object', $ref: 'https://example.test/s.json' } }), 400, 'COULD_NOT_VALIDATE', 'schema');
      assert.equal((await admin.get('/config-types?limit=500')).json().meta.pagination.totalCount, before);
      const id = await created('/config-types', { name: 'stays.v1', schema: PORT_SCHEMA });
      await unchanged(`/config-types/${id}`, () => refused(admin.patch(`/config-types/${id}`, { schema: { type: 'string' } }), 400, 'COULD_NOT_VALIDATE', 'schema'));
    });

    it('refuses a new schema the existing configs of the type would break', async () => {
      const id = await created('/config-types', { name: 'evolving.v1', schema: PORT_SCHEMA });
      await created('/configs', { name: 'evolving-config', configTypeId: id, data: { hostname: 'a', port: 80 } });
      const stricter = { ...PORT_SCHEMA, properties: { ...PORT_SCHEMA.properties, port: { type: 'integer', minimum: 1000 } } };
      await unchanged(`/config-types/${id}`, async () => {
        const error = await refused(admin.patch(`/config-types/${id}`, { schema: stricter }), 400, 'COULD_NOT_VALIDATE', 'schema');
        assert.match(error.message, /evolving-config/);
      });
    });

    it('refuses to delete a type configs use with 409, and deletes it once unused', async () => {
      const id = await created('/config-types', { name: 'used.v1', schema: PORT_SCHEMA });
      const config = await created('/configs', { name: 'user-of-used', configTypeId: id, data: { hostname: 'h', port: 1 } });
      const error = await refused(admin.del(`/config-types/${id}`), 409, 'CAN_NOT_DELETE_REFERENCED_ENTITY', 'id');
      assert.equal(error.cause.count, 1);
      assert.equal((await admin.get(`/config-types/${id}`)).status, 200);
      assert.deepEqual(await names(`/config-types/${id}/configs`), ['user-of-used']);
      assert.equal((await admin.del(`/configs/${config}`)).status, 200);
      assert.equal((await admin.del(`/config-types/${id}`)).status, 200);
      assert.equal((await admin.get(`/config-types/${id}/configs`)).status, 404);
    });
  });

  describe('configs', () => {
    let typeId: string;
    before(async () => {
      typeId = await created('/config-types', { name: 'endpoint.v1', schema: PORT_SCHEMA });
    });

    it('creates a config and shows its type as an entity reference; lists, replaces, patches and deletes it, auditing each change', async () => {
      const id = await created('/configs', { name: 'web', configTypeId: typeId, data: { hostname: 'web.test', port: 443 }, tags: { env: 'prod' } });
      const config = await read(`/configs/${id}`);
      assert.deepEqual(config.configType, { id: typeId, name: 'endpoint.v1', entity: 'config-types', _links: { self: { href: `./config-types/${typeId}` } } });
      assert.deepEqual([config.configTypeId, config.data, config.tags], [typeId, { hostname: 'web.test', port: 443 }, { env: 'prod' }]);
      await created('/configs', { name: 'web-2', configTypeId: typeId, data: { hostname: 'b', port: 2 } });
      assert.deepEqual(await names(`/configs?filter=${encodeURIComponent(`configTypeId = "${typeId}" sort by name desc`)}`), ['web-2', 'web']);
      assert.deepEqual(await names(`/config-types/${typeId}/configs?filter=${encodeURIComponent('name = "web-2"')}`), ['web-2']);

      assert.equal((await admin.put(`/configs/${id}`, { name: 'web', data: { hostname: 'web.test', port: 8443 } })).status, 200);
      assert.deepEqual([(await read(`/configs/${id}`)).data.port, (await read(`/configs/${id}`)).tags], [8443, {}]);
      assert.equal((await admin.put(`/configs/${id}`, { name: 'web', configTypeId: typeId, data: { hostname: 'web.test', port: 8443 } })).status, 200);
      assert.equal((await admin.patch(`/configs/${id}`, { name: 'web-renamed' })).status, 200);
      assert.equal((await read(`/configs/${id}`)).data.port, 8443);
      assert.equal((await admin.del(`/configs/${id}`)).status, 200);
      assert.equal((await admin.get(`/configs/${id}`)).status, 404);
      assert.deepEqual(await audit(id), ['config:create', 'config:update', 'config:update', 'config:patch', 'config:delete']);
    });

    it('accepts data for the well-known types as tunnelers send it', async () => {
      await created('/configs', { name: 'intercept', configTypeId: 'g7cIWbcGg', data: { protocols: ['tcp'], addresses: ['app.test'], portRanges: [{ low: 80, high: 443 }] } });
      await created('/configs', { name: 'host', configTypeId: 'NH5p4FpGR', data: { protocol: 'tcp', address: 'localhost', port: 8080 } });
      await created('/configs', { name: 'host-fwd', configTypeId: 'NH5p4FpGR', data: { forwardProtocol: true, allowedProtocols: ['tcp', 'udp'], address: '10.0.0.1', port: 22 } });
      await created('/configs', { name: 'host2', configTypeId: 'host.v2', data: { terminators: [{ protocol: 'udp', address: 'dns', port: 53 }] } });
      await refused(admin.post('/configs', { name: 'host-bad', configTypeId: 'NH5p4FpGR', data: { forwardProtocol: true, address: 'x', port: 1 } }), 400, 'COULD_NOT_VALIDATE', /^data/);
    });

    it('refuses data that breaks its type, naming data and where inside it, and changes nothing', async () => {
      const error = await refused(admin.post('/configs', { name: 'bad-data', configTypeId: typeId, data: { hostname: 'h', port: 'eighty' } }), 400, 'COULD_NOT_VALIDATE', 'data.port');
      assert.equal(error.cause.path, '/port');
      await refused(admin.post('/configs', { name: 'bad-data', configTypeId: 'g7cIWbcGg', data: { protocols: ['tcp'], addresses: ['a'], portRanges: [{ low: 1, high: 70000 }] } }), 400, 'COULD_NOT_VALIDATE', 'data.portRanges[0].high');
      await refused(admin.post('/configs', { name: 'bad-data', configTypeId: typeId, data: { hostname: 'h' } }), 400, 'COULD_NOT_VALIDATE', 'data');
      assert.equal((await admin.get(`/configs?filter=${encodeURIComponent('name = "bad-data"')}`)).json().data.length, 0);
      const id = await created('/configs', { name: 'good-data', configTypeId: typeId, data: { hostname: 'h', port: 1 } });
      await unchanged(`/configs/${id}`, () => refused(admin.patch(`/configs/${id}`, { data: { hostname: 'h', port: 0 } }), 400, 'COULD_NOT_VALIDATE', 'data.port'));
    });

    it('refuses an unknown configTypeId, and a change of type after create', async () => {
      await refused(admin.post('/configs', { name: 'orphan', configTypeId: 'no-such-type', data: {} }), 400, 'REFERENCED_ENTITY_NOT_FOUND', 'configTypeId');
      const id = await created('/configs', { name: 'fixed-type', configTypeId: typeId, data: { hostname: 'h', port: 1 } });
      const other = await created('/config-types', { name: 'other.v1' });
      await unchanged(`/configs/${id}`, async () => {
        await refused(admin.patch(`/configs/${id}`, { configTypeId: other }), 400, 'COULD_NOT_VALIDATE', 'configTypeId');
        await refused(admin.put(`/configs/${id}`, { name: 'fixed-type', configTypeId: other, data: {} }), 400, 'COULD_NOT_VALIDATE', 'configTypeId');
      });
    });

    it('answers 404 for every operation on an unknown config or type, and for its related lists', async () => {
      for (const res of [
        await admin.get('/configs/nope'),
        await admin.patch('/configs/nope', { name: 'x' }),
        await admin.del('/configs/nope'),
        await admin.get('/configs/nope/services'),
        await admin.get('/config-types/nope'),
        await admin.get('/config-types/nope/configs'),
      ]) {
        assert.deepEqual([res.status, res.json().error.code], [404, 'NOT_FOUND']);
      }
    });
  });

  it('refuses non-administrators with 403 on every operation', async () => {
    const user = managementClient(ctl, await nonAdminToken(ctl, 'configs-user'));
    for (const res of [
      await user.get('/config-types'),
      await user.post('/config-types', { name: 'x.v1' }),
      await user.get('/config-types/g7cIWbcGg'),
      await user.get('/config-types/g7cIWbcGg/configs'),
      await user.del('/config-types/g7cIWbcGg'),
      await user.get('/configs'),
      await user.post('/configs', { name: 'x', configTypeId: 'g7cIWbcGg', data: {} }),
    ]) {
      assert.equal(res.status, 403, res.text);
    }
    assert.equal((await admin.get('/config-types/g7cIWbcGg')).status, 200);
  });
});
