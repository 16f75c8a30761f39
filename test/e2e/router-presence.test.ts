/**
 * Router presence (issue 41, must-have 5; decision 0064) against a real controller: a router whose control channel
 * the control plane reports up (here the test calls `routerPresence.connected`, as the control plane does) reads
 * online, with its hostname, version and `supportedProtocols` exactly as `{"tls":"tls://host:port"}`, in the
 * management list and detail, the client's routers, a session's routers, a service's routers, policy advice and
 * `svc edge list edge-routers`; it reads offline once its channel closes, once the controller it is connected to
 * stops beating its heartbeat, and after that controller starts again; a deleted router's presence goes with it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createControllerRepository } from '../../src/persistence/repositories/controllers.js';
import { ONLINE_WITHIN_MS } from '../../src/services/controllers/heartbeat.js';
import { buildRouterPresence, InvalidHelloError, UnknownRouterError } from '../../src/services/routers/index.js';
import { newEntityId } from '../../src/shared/random.js';
import { systemClock } from '../../src/shared/clock.js';
import { cliUser } from '../helpers/cli.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { newSharedDatabase, testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { routerHello } from '../helpers/router-hello.js';

type Router = Record<string, unknown>;

const ONLINE = { isOnline: true, syncStatus: 'SYNC_DONE' };
const OFFLINE = { isOnline: false, syncStatus: 'SYNC_DISCONNECTED' };
const NEVER = { isOnline: false, syncStatus: 'SYNC_NEW' };
const statusOf = (router: Router | undefined) => ({ isOnline: router?.isOnline, syncStatus: router?.syncStatus });

describe(`router presence: online status wherever a router shows (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let xdg: string;
  const { ok } = cliUser(() => xdg);
  let aliceId: string;
  let crm: string;
  let routerCount = 0;

  before(async () => {
    ctl = await startTestController();
    admin = managementClient(ctl, await ctl.adminToken());
    xdg = mkdtempSync(join(tmpdir(), 'svc-router-presence-'));
    aliceId = (await createIdentity(ctl.running.database, { name: 'alice', password: 'alice-password' })).id;
    assert.equal((await admin.patch(`/identities/${aliceId}`, { roleAttributes: ['sales'] })).status, 200);
    crm = await createdId(admin, '/services', { name: 'crm', roleAttributes: ['crm'] });
    await createdId(admin, '/service-policies', { name: 'sales-dial-crm', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#sales'], serviceRoles: ['#crm'] });
    await createdId(admin, '/edge-router-policies', { name: 'sales-routers', semantic: 'AnyOf', identityRoles: ['#sales'], edgeRouterRoles: ['#public'] });
    await createdId(admin, '/service-edge-router-policies', { name: 'crm-routers', semantic: 'AnyOf', serviceRoles: ['#crm'], edgeRouterRoles: ['#public'] });
  });
  after(async () => {
    rmSync(xdg, { recursive: true, force: true });
    await ctl.close();
  });

  /** A new router; `public` routers are the ones alice reaches crm through. */
  const newRouter = async (roleAttributes: string[] = []) => {
    const name = `er-${++routerCount}`;
    return { id: await createdId(admin, '/edge-routers', { name, roleAttributes }), name };
  };
  const detail = async (id: string) => (await admin.get(`/edge-routers/${id}`)).json().data as Router;
  const listed = async (name: string) => ((await admin.get(`/edge-routers?filter=${encodeURIComponent(`name = "${name}"`)}`)).json().data as Router[])[0];
  const aliceToken = async () =>
    (await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'alice', password: 'alice-password' } })).json().data.token as string;
  /** Every client view of the router named `name`: alice's routers, a new session's routers, its detail, crm's routers. */
  const clientViews = async (name: string) => {
    const headers = { 'svc-session': await aliceToken() };
    const mine = (await ctl.fetch('/edge/client/v1/current-identity/edge-routers?limit=500', { headers })).json().data as Router[];
    const opened = await ctl.fetch('/edge/client/v1/sessions', { method: 'POST', headers, body: { serviceId: crm, type: 'Dial' } });
    assert.equal(opened.status, 201, opened.text);
    const session = (await ctl.fetch(`/edge/client/v1/sessions/${opened.json().data.id}`, { headers })).json().data;
    const ofService = (await ctl.fetch(`/edge/client/v1/services/${crm}/edge-routers?limit=500`, { headers })).json().data.edgeRouters as Router[];
    const pick = (routers: Router[]) => {
      assert.ok(Array.isArray(routers), JSON.stringify(routers));
      return routers.find((router) => router.name === name);
    };
    return { mine: pick(mine), created: pick(opened.json().data.edgeRouters), detail: pick(session.edgeRouters), ofService: pick(ofService) };
  };

  it('shows a connected router online in the management list and detail with its hostname, version and tls://host:port', async () => {
    const router = await newRouter();
    const never = await newRouter();
    await ctl.running.routerPresence.connected(router.id, routerHello('er1.example', ['tls:er1.example:3022']));

    for (const view of [await detail(router.id), await listed(router.name)]) {
      assert.deepEqual(statusOf(view), ONLINE);
      assert.equal(view?.hostname, 'er1.example');
      assert.equal(JSON.stringify(view?.supportedProtocols), '{"tls":"tls://er1.example:3022"}');
      assert.deepEqual(view?.versionInfo, { version: 'v0.41.0', revision: 'abc1234', buildDate: '2026-01-01T00:00:00Z', os: 'linux', arch: 'amd64' });
      assert.equal(view?.version, 'v0.41.0');
    }
    const untouched = await detail(never.id);
    assert.deepEqual([statusOf(untouched), untouched.hostname, untouched.supportedProtocols], [NEVER, '', {}]);
  });

  it("shows it online to a client: the identity's routers, a new session's routers, the session's detail and the service's routers", async () => {
    const router = await newRouter(['public']);
    await ctl.running.routerPresence.connected(router.id, routerHello('er-client.example', ['tls:er-client.example:3022', 'wss:er-client.example:3023']));

    const views = await clientViews(router.name);
    for (const [where, view] of Object.entries(views)) {
      assert.deepEqual(statusOf(view), ONLINE, where);
      assert.deepEqual(view?.supportedProtocols, { tls: 'tls://er-client.example:3022', wss: 'wss://er-client.example:3023' }, where);
      assert.equal(view?.hostname, 'er-client.example', where);
    }
    assert.deepEqual(views.created?.urls, views.created?.supportedProtocols, 'urls, for older SDKs, is the same map');
  });

  it('reads a router offline and disconnected everywhere once its channel closes, keeping what it last reported', async () => {
    const router = await newRouter(['public']);
    await ctl.running.routerPresence.connected(router.id, routerHello('er-gone.example', ['tls:er-gone.example:3022']));
    assert.deepEqual(statusOf(await detail(router.id)), ONLINE);

    await ctl.running.routerPresence.disconnected(router.id);

    const management = await detail(router.id);
    assert.deepEqual([statusOf(management), management.hostname], [OFFLINE, 'er-gone.example']);
    for (const [where, view] of Object.entries(await clientViews(router.name))) assert.deepEqual(statusOf(view), OFFLINE, where);
  });

  it('says in policy advice that no common router is online only while none is', async () => {
    const advice = async () => (await admin.get(`/identities/${aliceId}/policy-advice/${crm}`)).json().data;
    // Every common router so far is offline: take each online one down first.
    const before = await advice();
    for (const common of before.commonRouters as { id: string }[]) await ctl.running.routerPresence.disconnected(common.id);
    const none = await advice();
    assert.ok(none.commonRouters.length > 0 && none.commonRouters.every((r: { isOnline: boolean }) => !r.isOnline));
    assert.ok(none.reasons.some((reason: string) => reason.includes('no common router is online')), none.reasons.join('\n'));

    const router = await newRouter(['public']);
    await ctl.running.routerPresence.connected(router.id, routerHello('er-advice.example', ['tls:er-advice.example:3022']));
    const some = await advice();
    assert.deepEqual(
      some.commonRouters.filter((r: { isOnline: boolean }) => r.isOnline).map((r: { name: string }) => r.name),
      [router.name],
    );
    assert.ok(!some.reasons.some((reason: string) => reason.includes('online')), some.reasons.join('\n'));
  });

  it('counts the routers whose channel is up here in svc_routers_online', async () => {
    const gauge = async () => Number(/^svc_routers_online (\d+)$/m.exec((await ctl.running.services.metrics.exposition()).body)?.[1]);
    const start = await gauge();
    const router = await newRouter();
    await ctl.running.routerPresence.connected(router.id, routerHello('er-metric.example', ['tls:er-metric.example:3022']));
    assert.equal(await gauge(), start + 1);
    await ctl.running.routerPresence.disconnected(router.id);
    assert.equal(await gauge(), start);
  });

  it('reads a router connected at another controller online, and offline once that controller stops beating its heartbeat', async () => {
    const { database } = ctl.running;
    const controllers = createControllerRepository(database);
    const now = systemClock.now();
    // Controller A shares this store: its own registered row and heartbeat, its own presence service.
    const controllerA = await controllers.upsert({
      id: newEntityId(),
      name: `controller-a-${newEntityId()}`,
      certPem: 'not used',
      ctrlAddress: null,
      fingerprint: 'not used',
      apiAddresses: {},
      isOnline: true,
      lastJoinedAt: now,
      createdAt: now,
      updatedAt: now,
    });
    const atA = buildRouterPresence(database, { clock: systemClock, controllerId: controllerA });
    const router = await newRouter(['public']);
    await atA.connected(router.id, routerHello('er-a.example', ['tls:er-a.example:3022']));
    assert.deepEqual(statusOf(await detail(router.id)), ONLINE, 'online here while A beats');
    assert.deepEqual(statusOf((await clientViews(router.name)).mine), ONLINE);

    // A was killed: its latest heartbeat is now older than the bound (nothing else marked anything offline).
    const stale = new Date(systemClock.now().getTime() - ONLINE_WITHIN_MS - 1_000);
    await controllers.heartbeat(controllerA, stale, new Date(0));
    assert.deepEqual(statusOf(await detail(router.id)), OFFLINE);

    // The router moves to this controller: its row is replaced, and A's late word of the old channel changes nothing.
    await ctl.running.routerPresence.connected(router.id, routerHello('er-a.example', ['tls:er-a.example:4022']));
    await atA.disconnected(router.id);
    const moved = await detail(router.id);
    assert.deepEqual([statusOf(moved), moved.supportedProtocols], [ONLINE, { tls: 'tls://er-a.example:4022' }]);

    // This controller is alive (it answers): a late write of its own heartbeat never shows its own routers offline.
    const own = await database.db.selectFrom('controllers').select('id').where('id', '!=', controllerA).executeTakeFirstOrThrow();
    await controllers.heartbeat(own.id, stale, new Date(0));
    assert.deepEqual(statusOf(await detail(router.id)), ONLINE);
    await controllers.heartbeat(own.id, systemClock.now(), new Date(0));
  });

  it("drops a deleted router's presence with it, and refuses to record a router that does not exist", async () => {
    const router = await newRouter();
    await ctl.running.routerPresence.connected(router.id, routerHello('er-deleted.example', ['tls:er-deleted.example:3022']));
    const rows = () => ctl.running.database.db.selectFrom('router_presence').select('router_id').where('router_id', 'in', [router.id, 'no-such-router']).execute();
    assert.equal((await rows()).length, 1);

    assert.equal((await admin.del(`/edge-routers/${router.id}`)).status, 200);
    assert.deepEqual(await rows(), []);
    await assert.rejects(ctl.running.routerPresence.connected('no-such-router', routerHello('x.example', [])), UnknownRouterError);
    assert.deepEqual(await rows(), []);
  });

  it('refuses a hello with a field out of bounds, naming the field, and records nothing', async () => {
    const router = await newRouter();
    const presence = ctl.running.routerPresence;
    const refusals: Array<[string, Parameters<typeof routerHello>[2]]> = [
      ['hostname', { hostname: 'h'.repeat(256) }],
      ['capabilities', { capabilities: Array.from({ length: 65 }, (_, i) => `c${i}`) }],
      ['capabilities[0]', { capabilities: ['c'.repeat(65)] }],
      ['versionInfo.os', { versionInfo: { version: 'v1', revision: '', buildDate: '', os: 'o'.repeat(129), arch: '' } }],
      ['listeners', { listeners: Array.from({ length: 33 }, () => ({ binding: 'edge', advertise: 'tls:x.example:1' })) }],
      ['listeners[0].advertise', { listeners: [{ binding: 'edge', advertise: `tls:${'x'.repeat(300)}:1` }] }],
    ];
    for (const [field, overrides] of refusals) {
      await assert.rejects(presence.connected(router.id, routerHello('er-bad.example', [], overrides)), (error: Error) => {
        assert.ok(error instanceof InvalidHelloError && error.field === field && error.message.includes(field), `${field}: ${error.message}`);
        return true;
      });
    }
    assert.deepEqual(statusOf(await detail(router.id)), NEVER, 'nothing recorded');

    await presence.connected(router.id, routerHello('h'.repeat(255), ['tls:er-bad.example:3022'], { capabilities: ['c'.repeat(64)] }));
    assert.deepEqual(statusOf(await detail(router.id)), ONLINE, 'the same router with a hello within bounds');
  });

  it('lists edge routers in svc edge with their online status and version after the name', async () => {
    const router = await newRouter();
    const never = await newRouter();
    await ctl.running.routerPresence.connected(router.id, routerHello('er-cli.example', ['tls:er-cli.example:3022']));
    await ok('edge', 'login', ctl.baseUrl, '--yes', '-u', 'admin', '-p', 'admin-password');

    const table = (await ok('edge', 'list', 'edge-routers', `name = "${router.name}" or name = "${never.name}"`)).split('\n');
    assert.match(table[0] ?? '', /^id\s+name\s+isOnline\s+isVerified\s+version\s/);
    const row = (id: string) => table.find((line) => line.startsWith(id)) ?? '';
    assert.match(row(router.id), new RegExp(`^${router.id}\\s+${router.name}\\s+true\\s+false\\s+v0\\.41\\.0\\s`));
    assert.match(row(never.id), new RegExp(`^${never.id}\\s+${never.name}\\s+false\\s+false\\s+-\\s`));
  });
});

describe(`router presence across a controller restart (${testDialect})`, () => {
  let shared: { db: string; drop(): Promise<void> };
  const started: TestController[] = [];

  before(async () => {
    shared = await newSharedDatabase();
  });
  after(async () => {
    for (const ctl of started) await ctl.close();
    await shared.drop();
  });

  it('releases at start the channels a controller of the same name left behind, so its routers read offline until they reconnect', async () => {
    const first = await startTestController({ databaseTarget: shared.db });
    started.push(first);
    const admin = managementClient(first, await first.adminToken());
    const id = await createdId(admin, '/edge-routers', { name: 'er-restart' });
    await first.running.routerPresence.connected(id, routerHello('er-restart.example', ['tls:er-restart.example:3022']));
    assert.equal((await admin.get(`/edge-routers/${id}`)).json().data.isOnline, true);

    // The same controller starting again (same certificate, same store), as after SIGKILL: the old channel is gone.
    const again = await startTestController({ databaseTarget: shared.db });
    started.push(again);
    const view = (await managementClient(again, await again.adminToken()).get(`/edge-routers/${id}`)).json().data;
    assert.deepEqual([view.isOnline, view.syncStatus, view.hostname], [false, 'SYNC_DISCONNECTED', 'er-restart.example']);

    await again.running.routerPresence.connected(id, routerHello('er-restart.example', ['tls:er-restart.example:3022']));
    assert.equal((await managementClient(again, await again.adminToken()).get(`/edge-routers/${id}`)).json().data.isOnline, true, 'online again once it reconnects');
  });
});
