/**
 * The change preview beyond policies and identities (issue 45, decision 0082): a service's role attributes (who
 * gains or loses it), an edge router's (which identities gain or lose the router, which services gain their first or
 * lose their last), and a posture check's create, update or delete (which identity–service pairs become blocked or
 * unblocked on the identities' current posture data, as their client reported it). Each with a change that moves
 * nothing as the negative case; nothing is saved; malformed input is refused naming the field.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { createIdentity } from '../helpers/fixtures.js';

interface Item {
  identity?: { name: string };
  service?: { name: string };
  edgeRouter?: { name: string };
  permission?: string;
}
interface Changes {
  count: number;
  countIsLowerBound: boolean;
  items: Item[];
}
/** Each item as a line: its parts' names in order, and how. */
const lines = (changes: Changes) =>
  changes.items.map((item) => [item.identity?.name, item.permission, item.service?.name, item.edgeRouter?.name].filter(Boolean).join(' ')).sort();

describe(`change previews of services, edge routers and posture checks (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  const ids: Record<string, string> = {};

  const preview = async (body: object) => {
    const res = await admin.post('/change-previews', body);
    assert.equal(res.status, 200, res.text);
    return res.json().data as { gains: Changes; losses: Changes };
  };

  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    await createdId(admin, '/identities', { name: 'alice', type: 'User', isAdmin: false, roleAttributes: ['eng'] });
    await createdId(admin, '/identities', { name: 'bob', type: 'User', isAdmin: false, roleAttributes: ['ops'] });
    ids.wiki = await createdId(admin, '/services', { name: 'wiki', roleAttributes: ['docs'] });
    ids.grafana = await createdId(admin, '/services', { name: 'grafana', roleAttributes: ['ops'] });
    await createdId(admin, '/service-policies', { name: 'eng-docs', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#eng'], serviceRoles: ['#docs'] });
    await createdId(admin, '/service-policies', { name: 'ops-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#ops'], serviceRoles: ['#ops'] });
    ids.edge1 = await createdId(admin, '/edge-routers', { name: 'edge-1', roleAttributes: ['edge'] });
    ids.edge2 = await createdId(admin, '/edge-routers', { name: 'edge-2', roleAttributes: ['spare'] });
    await createdId(admin, '/edge-router-policies', { name: 'eng-edge', semantic: 'AnyOf', identityRoles: ['#eng'], edgeRouterRoles: ['#edge'] });
    await createdId(admin, '/service-edge-router-policies', { name: 'docs-edge', semantic: 'AnyOf', serviceRoles: ['#docs'], edgeRouterRoles: ['#edge'] });
  });
  after(async () => ctl?.close());

  describe("a service's role attributes", () => {
    it('names the identities that gain and lose the service, and how, saving nothing', async () => {
      const grafana = await preview({ entity: 'services', id: ids.grafana, change: { roleAttributes: ['ops', 'docs'] } });
      assert.deepEqual(lines(grafana.gains), ['alice dial grafana'], 'bob may dial it already');
      assert.equal(grafana.losses.count, 0);
      const wiki = await preview({ entity: 'services', id: ids.wiki, change: { roleAttributes: [] } });
      assert.deepEqual(lines(wiki.losses), ['alice dial wiki']);
      assert.equal(wiki.losses.countIsLowerBound, false);
      assert.deepEqual((await admin.get(`/services/${ids.grafana}`)).json().data.roleAttributes, ['ops'], 'nothing was saved');
    });

    it('finds nothing when the new attribute no policy selects leaves its policies as they are', async () => {
      const { gains, losses } = await preview({ entity: 'services', id: ids.grafana, change: { roleAttributes: ['ops', 'unused'] } });
      assert.equal(gains.count, 0);
      assert.equal(losses.count, 0);
    });
  });

  describe("an edge router's role attributes", () => {
    it('names the identities that lose the router and the services losing their last router', async () => {
      const { gains, losses } = await preview({ entity: 'edge-routers', id: ids.edge1, change: { roleAttributes: [] } });
      assert.deepEqual(lines(losses), ['alice edge-1', 'wiki edge-1']);
      assert.equal(gains.count, 0);
    });

    it('names identities gaining a second router, but no service that keeps another router', async () => {
      const { gains, losses } = await preview({ entity: 'edge-routers', id: ids.edge2, change: { roleAttributes: ['edge'] } });
      assert.deepEqual(lines(gains), ['alice edge-2'], 'wiki has edge-1 already: not a gain of access');
      assert.equal(losses.count, 0);
      const unchanged = await preview({ entity: 'edge-routers', id: ids.edge2, change: { roleAttributes: ['spare', 'lab'] } });
      assert.equal(unchanged.gains.count + unchanged.losses.count, 0);
    });
  });

  describe("a posture check's create, update and delete", () => {
    let headers: Record<string, string>;
    before(async () => {
      const carol = await createIdentity(ctl.running.database, { name: 'carol', username: 'carol', password: 'carol-password' });
      ids.vault = await createdId(admin, '/services', { name: 'vault', roleAttributes: ['vault'] });
      await createdId(admin, '/service-policies', {
        name: 'carol-vault',
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: [`@${carol.id}`],
        serviceRoles: ['#vault'],
        postureCheckRoles: ['#vault-posture'],
      });
      const login = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'carol', password: 'carol-password' } });
      assert.equal(login.status, 200, login.text);
      headers = { 'svc-session': login.json().data.token };
      // Carol's client reports Linux, as an SDK does for the OS check it is asked about.
      ids.osProbe = await createdId(admin, '/posture-checks', { name: 'os-probe', typeId: 'OS', operatingSystems: [{ type: 'Linux' }] });
      const reported = await ctl.fetch('/edge/client/v1/posture-response', { method: 'POST', headers, body: { id: ids.osProbe, typeId: 'OS', type: 'Linux', version: '6.1.0' } });
      assert.equal(reported.status, 201, reported.text);
    });

    it("blocks the pairs a new check fails on the identities' current posture data, saving nothing", async () => {
      const windows = { typeId: 'OS', name: 'windows-only', roleAttributes: ['vault-posture'], operatingSystems: [{ type: 'Windows' }] };
      const { gains, losses } = await preview({ entity: 'posture-checks', change: windows });
      assert.deepEqual(lines(losses), ['carol dial vault']);
      assert.equal(gains.count, 0);
      assert.equal((await admin.get('/posture-checks?filter=name%3D%22windows-only%22')).json().meta.pagination.totalCount, 0, 'nothing was saved');
    });

    it('blocks nothing when the new check passes on what the identity reported', async () => {
      const linux = { typeId: 'OS', name: 'linux-only', roleAttributes: ['vault-posture'], operatingSystems: [{ type: 'Linux' }] };
      const { gains, losses } = await preview({ entity: 'posture-checks', change: linux });
      assert.equal(gains.count + losses.count, 0);
    });

    it('unblocks the pairs when a failing check is changed to pass, moved off the policy, or deleted', async () => {
      const checkId = await createdId(admin, '/posture-checks', { name: 'windows-gate', typeId: 'OS', roleAttributes: ['vault-posture'], operatingSystems: [{ type: 'Windows' }] });
      try {
        const updated = await preview({ entity: 'posture-checks', id: checkId, change: { operatingSystems: [{ type: 'Linux' }] } });
        assert.deepEqual(lines(updated.gains), ['carol dial vault']);
        assert.equal(updated.losses.count, 0);
        const moved = await preview({ entity: 'posture-checks', id: checkId, change: { roleAttributes: ['elsewhere'] } });
        assert.deepEqual(lines(moved.gains), ['carol dial vault']);
        const deleted = await preview({ entity: 'posture-checks', id: checkId, delete: true });
        assert.deepEqual(lines(deleted.gains), ['carol dial vault']);
        const renamed = await preview({ entity: 'posture-checks', id: checkId, change: { name: 'windows-gate-2' } });
        assert.equal(renamed.gains.count + renamed.losses.count, 0, 'a change that keeps the check failing unblocks nothing');
      } finally {
        assert.equal((await admin.del(`/posture-checks/${checkId}`)).status, 200);
      }
    });
  });

  it('refuses malformed input naming the field, with nothing previewed', async () => {
    const cases: [object, number, RegExp][] = [
      [{ entity: 'services', id: ids.wiki, change: { roleAttributes: 'docs' } }, 400, /change.roleAttributes must be a list/],
      [{ entity: 'services', change: { roleAttributes: [] } }, 400, /id is required: a new service has no access to preview/],
      [{ entity: 'services', id: 'missing', change: { roleAttributes: [] } }, 404, /missing/],
      [{ entity: 'edge-routers', id: ids.edge1, delete: true }, 400, /delete is not previewed for edge routers/],
      [{ entity: 'edge-routers', id: ids.edge1, change: { roleAttributes: [7] } }, 400, /change.roleAttributes must be a list/],
      [{ entity: 'posture-checks', change: { operatingSystems: [{ type: 'Linux' }] } }, 400, /change.typeId is not a posture check type/],
      [{ entity: 'posture-checks', change: { typeId: 'OS', operatingSystems: [{ type: 'Plan9' }] } }, 400, /change.operatingSystems.0.type/],
      [{ entity: 'posture-checks', change: { typeId: 'OS', operatingSystems: 'Linux' } }, 400, /change.operatingSystems must be array/],
      [{ entity: 'posture-checks', change: { typeId: 'MAC', colour: 'red' } }, 400, /change.colour is not a field of a posture check/],
      [{ entity: 'posture-checks', change: { typeId: 'MAC', macAddresses: ['zz'] } }, 400, /change.macAddresses/],
      [{ entity: 'posture-checks', delete: true }, 400, /id is required to preview a delete/],
      [{ entity: 'posture-checks', id: 'missing', delete: true }, 404, /missing/],
    ];
    for (const [body, status, message] of cases) {
      const res = await admin.post('/change-previews', body);
      assert.equal(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.text, message, JSON.stringify(body));
    }
  });
});
