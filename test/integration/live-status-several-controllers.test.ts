/**
 * The live status stream across two controllers sharing one PostgreSQL (issue 45): a stream open at the first
 * controller is told of a login and a logout made at the second, and of a router whose control channel comes up and
 * goes down at the second, through the change feed (announced by LISTEN/NOTIFY). Two controllers in this process;
 * PostgreSQL only (SQLite is one controller's store): on the SQLite run nothing is registered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningRouter } from '../../src/router/run.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { newSharedDatabase, testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { managementClient } from '../helpers/management.js';
import { enrolledRouter, eventually, runRouterInProcess, type EnrolledRouter } from '../helpers/routers.js';
import { identityStates, openStatusStream, type StatusStream } from '../helpers/status-stream.js';

if (testDialect === 'postgres') {
  describe('live status across two controllers on one PostgreSQL', () => {
    let shared: { db: string; drop(): Promise<void> };
    let a: TestController;
    let b: TestController;
    let stream: StatusStream;
    let router: EnrolledRouter | undefined;
    let running: RunningRouter | undefined;

    before(async () => {
      shared = await newSharedDatabase();
      a = await startTestController({ databaseTarget: shared.db });
      b = await startTestController({ databaseTarget: shared.db, extraPorts: 1, modify: (config, ports) => (config.ctrl = { listener: `tls:127.0.0.1:${ports[1]}` }) });
      stream = await openStatusStream(a, await a.adminToken());
      assert.equal(stream.status, 200);
      assert.ok(await eventually(() => stream.events.some((e) => e.event === 'hello')));
    });
    after(async () => {
      stream?.close();
      await running?.stop().catch(() => undefined);
      router?.remove();
      await b?.close();
      await a?.close();
      await shared?.drop();
    });

    it('tells a stream at the first controller of a login and a logout made at the second', async () => {
      const user = await createIdentity(b.running.database, { name: 'far-user', username: 'far-user', password: 'far-password' });
      const login = await b.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'far-user', password: 'far-password' } });
      assert.equal(login.status, 200, login.text);
      assert.ok(await eventually(() => identityStates(stream, user.id).at(-1) === true), stream.text());
      assert.equal(stream.events.find((e) => e.event === 'identity' && e.data.id === user.id)!.data.name, 'far-user');
      const logout = await b.fetch('/edge/client/v1/current-api-session', { method: 'DELETE', headers: { 'svc-session': login.json().data.token } });
      assert.equal(logout.status, 200, logout.text);
      assert.ok(await eventually(() => identityStates(stream, user.id).at(-1) === false), JSON.stringify(stream.events));
      assert.deepEqual(identityStates(stream, user.id), [true, false]);
    });

    it('tells a stream at the first controller of a router coming online and going offline at the second, with its name and version', async () => {
      const adminB = managementClient(b, await b.adminToken());
      router = await enrolledRouter(adminB, (t, body) => b.fetch(`/edge/client/v1/enroll?method=erott&token=${t}`, { method: 'POST', body }), 'far-router', {
        endpoints: [`tls:127.0.0.1:${b.ports[1]}`],
      });
      const routerStates = () => stream.events.filter((e) => e.event === 'router' && e.data.id === router!.id).map((e) => e.data);
      running = (await runRouterInProcess(router)).running;
      assert.ok(await eventually(() => routerStates().at(-1)?.isOnline === true), stream.text());
      assert.equal(routerStates().at(-1).name, 'far-router');
      assert.equal(routerStates().at(-1).version, '0.0.0-test');
      await running.stop();
      running = undefined;
      assert.ok(await eventually(() => routerStates().at(-1)?.isOnline === false), JSON.stringify(stream.events));
    });
  });
}
