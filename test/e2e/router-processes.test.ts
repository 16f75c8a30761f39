/**
 * Routers and controllers as the operator runs them (issue 41): `svc router run` and `svc controller run` as real
 * processes. A router killed with SIGKILL reads offline within two heartbeat intervals; one stopped with SIGTERM
 * exits 0 after one line saying so; a restarted controller shows its routers online again within seconds, with no
 * operator action; a router that is not enrolled, or whose file has errors, exits 1 with the reason. With two
 * controllers on PostgreSQL, a router connected to one is online at both, learns both addresses, and moves to the
 * other when its controller dies.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { openDatabase } from '../../src/persistence/database.js';
import { createIdentityRepository } from '../../src/persistence/repositories/identities.js';
import { ensureDefaultAdmin } from '../../src/services/identities/default-admin.js';
import { systemClock } from '../../src/shared/clock.js';
import { spawnCli, stopLeftRunning, type CliProcess } from '../helpers/cli.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';
import type { TestController } from '../helpers/controller.js';
import { createSharedPki, startControllerProcess, type ControllerProcess, type SharedPki } from '../helpers/controller-processes.js';
import { newSharedDatabase, testDialect } from '../helpers/database.js';
import { managementClient, type ManagementClient } from '../helpers/management.js';
import { enrolledRouter, eventually, writeRouterFile, type EnrolledRouter } from '../helpers/routers.js';

const CLIENT = '/edge/client/v1';
/** The heartbeat interval of the test routers (helpers/routers.ts FAST_CTRL). */
const HEARTBEAT_MS = 200;

async function adminOf(ctl: ControllerProcess): Promise<ManagementClient> {
  const res = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: 'admin', password: 'admin-password' } });
  if (res.status !== 200) throw new Error(`admin login failed: ${res.status} ${res.text}`);
  return managementClient(ctl as unknown as TestController, res.json().data.token);
}

const runRouter = (router: EnrolledRouter): Promise<CliProcess> => {
  const cli = spawnCli(['router', 'run', '--config', router.configPath], { SVC_LOG_LEVEL: 'info' });
  return cli.waitForOutput('svc router running', 60_000).then(() => cli);
};

describe(`routers and controllers as processes (${testDialect})`, () => {
  let shared: { db: string; drop(): Promise<void> };
  let pki: SharedPki;
  let a: ControllerProcess;
  let admin: ManagementClient;
  const routers: EnrolledRouter[] = [];

  before(async () => {
    shared = await newSharedDatabase();
    const database = await openDatabase(testDialect === 'postgres' ? { kind: 'postgres', url: shared.db } : { kind: 'sqlite', path: shared.db });
    await ensureDefaultAdmin({ identities: createIdentityRepository(database), clock: systemClock }, { username: 'admin', password: 'admin-password' });
    await database.close();
    pki = await createSharedPki();
    a = await startControllerProcess({ pki, name: 'a', db: shared.db, ctrl: true });
    admin = await adminOf(a);
  });
  after(async () => {
    await stopLeftRunning();
    for (const router of routers) router.remove();
    pki.remove();
    await shared.drop();
  });

  const newRouter = async (name: string, endpoints = [a.ctrlEndpoint!]) => {
    const router = await enrolledRouter(admin, (token, body) => a.fetch(`${CLIENT}/enroll?method=erott&token=${token}`, { method: 'POST', body }), name, { endpoints });
    routers.push(router);
    return router;
  };
  const isOnline = async (ctl: ControllerProcess, client: ManagementClient, id: string) => {
    void ctl;
    return (await client.get(`/edge-routers/${id}`)).json().data.isOnline === true;
  };

  it('reads a router killed with SIGKILL offline within two heartbeat intervals, and one stopped with SIGTERM exits 0', async () => {
    const router = await newRouter('er-kill');
    let cli = await runRouter(router);
    assert.ok(await eventually(() => isOnline(a, admin, router.id)), 'online');
    const killedAt = Date.now();
    await cli.stop('SIGKILL');
    assert.ok(await eventually(() => isOnline(a, admin, router.id).then((up) => !up), 2 * HEARTBEAT_MS + 1_000), 'offline');
    assert.ok(Date.now() - killedAt <= 2 * HEARTBEAT_MS + 1_000);

    cli = await runRouter(router);
    assert.ok(await eventually(() => isOnline(a, admin, router.id)), 'online again');
    assert.equal(await cli.stop('SIGTERM'), 0, 'a clean stop');
    assert.match(cli.stdout(), /stopping \(SIGTERM\)\.\.\.\nstopped/);
    assert.ok(await eventually(() => isOnline(a, admin, router.id).then((up) => !up)));
  });

  it('shows the routers online again after the controller is killed and restarted, with no operator action', async () => {
    const router = await newRouter('er-ctrl-restart');
    const cli = await runRouter(router);
    assert.ok(await eventually(() => isOnline(a, admin, router.id)));
    await a.stop('SIGKILL');
    await a.restart();
    admin = await adminOf(a);
    const restartedAt = Date.now();
    assert.ok(await eventually(() => isOnline(a, admin, router.id), 10_000), `online again within seconds; router said: ${cli.stderr().slice(-3000)}; controller said: ${a.cli.stderr().slice(-3000)}`);
    assert.ok(Date.now() - restartedAt < 10_000);
    assert.match(cli.stderr(), /disconnected from the controller/);
    await cli.stop('SIGTERM');
  });

  it('exits 1 with one sentence when the router is not enrolled or its file has errors', async () => {
    const router = await newRouter('er-broken');
    rmSync(`${router.dir}/client.pem`);
    // In process: the refusal comes before anything starts, and is what this is about (not the process).
    let run = await runCliInProcess(['router', 'run', '--config', router.configPath]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /client\.pem/);
    assert.match(run.stderr, /svc router enroll/);

    writeRouterFile(router, { endpoints: ['tls:127.0.0.1:notaport'] });
    run = await runCliInProcess(['router', 'run', '--config', router.configPath]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /router\.yml:\d+:\d+/, 'the error names its line and column');
  });

  if (testDialect === 'postgres') {
    it('with two controllers, is online at both, learns both addresses, and moves to the other when its controller dies', async () => {
      const b = await startControllerProcess({ pki, name: 'b', db: shared.db, ctrl: true });
      const adminB = await adminOf(b);
      const router = await newRouter('er-two', [a.ctrlEndpoint!]);
      const cli = await runRouter(router);
      assert.ok(await eventually(() => isOnline(a, admin, router.id)));
      assert.ok(await eventually(() => isOnline(b, adminB, router.id)), 'online at the other controller too');
      const endpointsFile = `${router.dir}/endpoints.yml`;
      assert.ok(
        await eventually(() => {
          try {
            const known = parse(readFileSync(endpointsFile, 'utf8')) as { ctrl: string[] };
            return known.ctrl.includes(a.ctrlEndpoint!) && known.ctrl.includes(b.ctrlEndpoint!);
          } catch {
            return false;
          }
        }, 15_000),
        'the endpoints file lists both controllers',
      );
      await a.stop('SIGKILL');
      // The router reads online at b meanwhile: a's row counts until a's heartbeat is stale (15 s), and by then the
      // router holds a channel to b.
      const movedLine = new RegExp(`connected to controller .* at ${b.ctrlEndpoint!.replaceAll('.', '\\.')}`);
      assert.ok(await eventually(() => movedLine.test(cli.stderr()), 10_000), `moved to b; router said: ${cli.stderr().slice(-2000)}`);
      assert.ok(await eventually(() => isOnline(b, adminB, router.id), 5_000), 'online at b after a died');
      await cli.stop('SIGTERM');
      await b.stop('SIGTERM');
      await a.restart();
      admin = await adminOf(a);
    });
  }
});
