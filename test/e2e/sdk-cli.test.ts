/**
 * `svc sdk dial` and `svc sdk host` as real processes through a router run in this process (issue 42 item 6): host
 * pipes each connection to a TCP echo server, dial sends its stdin and prints what comes back, exiting 0 once both
 * directions ended; a service it may not see, an unreadable identity file and a bad --to are refused in one sentence
 * with exit codes 1, 2 and 2; host stops cleanly on SIGTERM.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunningRouter } from '../../src/router/run.js';
import { runCli, spawnCli, stopLeftRunning } from '../helpers/cli.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';
import type { TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { managementClient, type ManagementClient } from '../helpers/management.js';
import { eventually, runRouterInProcess, type EnrolledRouter } from '../helpers/routers.js';
import { openRouterPolicies, sdkTestController, sdkIdentity, sdkRouter, sdkService } from '../helpers/sdk.js';

describe(`svc sdk dial and host (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let router: EnrolledRouter;
  let er: RunningRouter;
  let echoServer: Server;
  let echoPort: number;
  let dir: string;
  const files = { host: '', dialer: '' };

  before(async () => {
    ctl = await sdkTestController();
    admin = managementClient(ctl, await ctl.adminToken());
    router = await sdkRouter(ctl, admin, 'er-cli');
    er = (await runRouterInProcess(router)).running;
    assert.ok(await eventually(async () => er.control.connected && (await admin.get(`/edge-routers/${router.id}`)).json().data.isOnline === true), 'router online');
    const host = await sdkIdentity(ctl, 'cli-host');
    const dialer = await sdkIdentity(ctl, 'cli-dialer');
    await openRouterPolicies(admin);
    await sdkService(admin, 'echo', { dialers: [dialer.id], hosts: [host.id] });
    dir = mkdtempSync(join(tmpdir(), 'svc-sdk-cli-'));
    files.host = join(dir, 'host.json');
    files.dialer = join(dir, 'dialer.json');
    writeFileSync(files.host, JSON.stringify(host.file));
    writeFileSync(files.dialer, JSON.stringify(dialer.file));
    echoServer = createServer({ allowHalfOpen: true }, (socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echoServer.listen(0, '127.0.0.1', resolve));
    echoPort = (echoServer.address() as { port: number }).port;
  });
  after(async () => {
    await stopLeftRunning();
    echoServer?.close();
    await er?.stop();
    router?.remove();
    await ctl?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('host pipes connections to HOST:PORT; dial sends stdin, prints the answer and exits 0; host stops on SIGTERM', async () => {
    const host = spawnCli(['sdk', 'host', 'echo', '--identity', files.host, '--to', `127.0.0.1:${echoPort}`]);
    await host.waitForOutput("hosting service 'echo' on router er-cli; connections go to 127.0.0.1:");
    assert.ok(await eventually(async () => (await admin.get('/terminators')).json().data.length === 1), 'terminator created');
    const dial = await runCli(['sdk', 'dial', 'echo', '--identity', files.dialer], {}, { stdin: 'ping over the overlay\n' });
    assert.equal(dial.stderr, '');
    assert.equal(dial.code, 0);
    assert.equal(dial.stdout, 'ping over the overlay\n');
    assert.equal(await host.stop('SIGTERM'), 0);
    assert.match(host.stdout(), /stopping \(SIGTERM\)/);
  });

  it('refuses a service it may not see (exit 1), an unreadable identity file and a bad --to (exit 2), in one sentence each', async () => {
    const unknown = await runCliInProcess(['sdk', 'dial', 'nope', '--identity', files.dialer], {}, { stdin: '' });
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, "svc: service 'nope' does not exist or this identity may not see it\n");
    const missing = await runCliInProcess(['sdk', 'dial', 'echo', '--identity', join(dir, 'absent.json')], {}, { stdin: '' });
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr, `svc: --identity: identity file '${join(dir, 'absent.json')}' cannot be read (ENOENT)\n`);
    const badTo = await runCliInProcess(['sdk', 'host', 'echo', '--identity', files.host, '--to', 'no-port-here']);
    assert.equal(badTo.code, 2);
    assert.match(badTo.stderr, /^svc: --to: /);
  });
});
