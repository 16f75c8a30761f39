/**
 * The client tunneler end to end (issue 43, helper client): a real controller, a router run in this process, an SDK
 * context hosting an echo service, and the tunneler (in process through startTunneler, and as the `svc tunnel`
 * process) listening for the intercept.v1 configs of the services its identity may dial. TCP through it reaches the
 * echo end-to-end encrypted with half-close both ways and the public tunnelers' AppData; UDP datagrams of a flow go
 * both ways and an idle flow ends; a Dial policy added or removed adds or removes the listener within the poll
 * interval (closing its open connections), also after the API session was deleted; a changed config moves the
 * listener; a refused dial closes the local socket with one line naming the service; the CLI prints the table
 * (listening, stand-in, cannot listen, malformed config) or JSON lines, refuses bad options and identity files, and
 * stops on SIGTERM with its ports released.
 */
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { RunningRouter } from '../../src/router/run.js';
import { createContext, type SvcConnection, type SvcContext } from '../../src/sdk/index.js';
import { startTunneler, type Tunneler } from '../../src/tunneler/tunneler.js';
import { spawnCli, stopLeftRunning } from '../helpers/cli.js';
import { runCliInProcess as runCli } from '../helpers/cli-in-process.js';
import type { TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { stablePort } from '../helpers/ports.js';
import { eventually, runRouterInProcess, type EnrolledRouter } from '../helpers/routers.js';
import { openRouterPolicies, readAll, sdkIdentity, sdkRouter, sdkService, sdkTestController, type SdkTestIdentity } from '../helpers/sdk.js';

/** The well-known intercept.v1 config type's id (migration 0013). */
const INTERCEPT_V1_ID = 'g7cIWbcGg';

/** A TCP connection to 127.0.0.1:`port` once it is open. */
async function tcpTo(port: number): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
  await once(socket, 'connect');
  return socket;
}

/** Whether 127.0.0.1:`port` refuses a TCP connection (nothing listens). */
const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

describe(`the client tunneler (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let router: EnrolledRouter;
  let er: RunningRouter;
  let host: SdkTestIdentity;
  let client: SdkTestIdentity;
  let hosting: SvcContext;
  let dir: string;
  let clientFile: string;
  const ports = { echo: 0, named: 0, busy: 0, broken: 0, late: 0, unhosted: 0 };
  /** The AppData of every connection the echo host accepted. */
  const appData: string[] = [];
  /** Every connection the echo host accepted. */
  const accepted: SvcConnection[] = [];
  const running: Array<{ close(): Promise<void> }> = [];

  /** An intercept.v1 config; its id. */
  const interceptConfig = (name: string, data: Record<string, unknown>) => createdId(admin, '/configs', { name, configTypeId: INTERCEPT_V1_ID, data });
  /** A tunneler for `who` in this process, polling every 100 ms; reports collected in `reports`. */
  const tunneler = async (who: SdkTestIdentity, reports: string[] = [], udpIdleMs?: number): Promise<Tunneler> => {
    const ctx = await createContext({ identity: who.file });
    const t = await startTunneler(ctx, { bindHost: '127.0.0.1', portOffset: 0, maxPorts: 64, pollMs: 100, ...(udpIdleMs ? { udpIdleMs } : {}), onChange: () => undefined, report: (line) => reports.push(line) });
    running.push(t, ctx);
    return t;
  };
  const stateOf = (t: Tunneler, service: string) => t.view.rows.find((r) => r.service === service)?.state;

  before(async () => {
    ctl = await sdkTestController();
    admin = managementClient(ctl, await ctl.adminToken());
    router = await sdkRouter(ctl, admin, 'er-tunnel');
    er = (await runRouterInProcess(router)).running;
    assert.ok(await eventually(async () => er.control.connected && (await admin.get(`/edge-routers/${router.id}`)).json().data.isOnline === true), 'router online');
    host = await sdkIdentity(ctl, 'tunnel-host');
    client = await sdkIdentity(ctl, 'tunnel-client');
    await openRouterPolicies(admin);
    for (const key of Object.keys(ports) as Array<keyof typeof ports>) ports[key] = await stablePort();
    const echoConfig = await interceptConfig('echo-intercept', { protocols: ['tcp', 'udp'], addresses: ['127.0.0.1'], portRanges: [{ low: ports.echo, high: ports.echo }] });
    await sdkService(admin, 'echo', { dialers: [client.id], hosts: [host.id], configs: [echoConfig], encryptionRequired: true });
    const namedConfig = await interceptConfig('named-intercept', { protocols: ['tcp'], addresses: ['echo.internal'], portRanges: [{ low: ports.named, high: ports.named }] });
    await sdkService(admin, 'named', { dialers: [client.id], hosts: [host.id], configs: [namedConfig], encryptionRequired: false });
    const unhostedConfig = await interceptConfig('unhosted-intercept', { protocols: ['tcp'], addresses: ['127.0.0.1'], portRanges: [{ low: ports.unhosted, high: ports.unhosted }] });
    await sdkService(admin, 'unhosted', { dialers: [client.id], hosts: [], configs: [unhostedConfig] });
    hosting = await createContext({ identity: host.file });
    const echo = (conn: SvcConnection) => {
      appData.push(conn.appData?.toString() ?? '');
      accepted.push(conn);
      conn.pipe(conn);
    };
    await hosting.listen('echo', echo);
    await hosting.listen('named', echo);
    assert.ok(await eventually(async () => (await admin.get('/terminators')).json().data.length === 2), 'both services hosted');
    dir = mkdtempSync(join(tmpdir(), 'svc-tunnel-'));
    clientFile = join(dir, 'client.json');
    writeFileSync(clientFile, JSON.stringify(client.file));
  });
  afterEach(async () => {
    for (const r of running.splice(0).reverse()) await r.close();
    await stopLeftRunning();
  });
  after(async () => {
    await hosting?.close();
    await er?.stop();
    router?.remove();
    await ctl?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('relays a TCP connection to the hosted echo, end-to-end encrypted, with half-close both ways and the AppData of the public tunnelers', async () => {
    const t = await tunneler(client);
    assert.equal(stateOf(t, 'echo'), 'listening');
    appData.length = 0;
    const socket = await tcpTo(ports.echo);
    const localPort = socket.localPort;
    socket.end('ping through the tunneler');
    // The echo answers only after it read our FIN, and its own FIN reaches us as the end of the stream.
    assert.equal((await readAll(socket)).toString(), 'ping through the tunneler');
    const sent = JSON.parse(appData[0] ?? '{}');
    assert.deepEqual({ ...sent, src_port: typeof sent.src_port }, { dst_protocol: 'tcp', dst_ip: '127.0.0.1', dst_port: String(ports.echo), src_protocol: 'tcp', src_ip: '127.0.0.1', src_port: 'string' });
    assert.equal(sent.src_port, String(localPort));
  });

  it('listens for a host name intercept on the bind address and tells the hosting side the host name it stands for', async () => {
    const t = await tunneler(client);
    assert.equal(stateOf(t, 'named'), 'listening (not interceptable without root)');
    assert.deepEqual(
      t.view.rows.filter((r) => r.service === 'named').map((r) => [r.intercept, r.listen]),
      [[`echo.internal:${ports.named}`, `127.0.0.1:${ports.named}`]],
    );
    appData.length = 0;
    const socket = await tcpTo(ports.named);
    socket.end('named');
    assert.equal((await readAll(socket)).toString(), 'named');
    assert.equal(JSON.parse(appData[0] ?? '{}').dst_hostname, 'echo.internal');
  });

  it('carries the UDP datagrams of a flow both ways, one datagram per message', async () => {
    await tunneler(client);
    const udp = createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    const received: string[] = [];
    udp.on('message', (m) => received.push(m.toString()));
    udp.send('first datagram', ports.echo, '127.0.0.1');
    udp.send('second', ports.echo, '127.0.0.1');
    assert.ok(await eventually(() => received.length === 2), `two datagrams came back (got ${JSON.stringify(received)})`);
    assert.deepEqual(received.sort(), ['first datagram', 'second']);
    udp.close();
  });

  it('ends an idle UDP flow: its overlay connection closes, and the next datagram from that source opens a new one', async () => {
    await tunneler(client, [], 300);
    const udp = createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    const received: string[] = [];
    udp.on('message', (m) => received.push(m.toString()));
    accepted.length = 0;
    udp.send('one', ports.echo, '127.0.0.1');
    assert.ok(await eventually(() => received.length === 1 && accepted.length === 1), 'the flow carried a datagram');
    await once(accepted[0]!, 'close');
    udp.send('two', ports.echo, '127.0.0.1');
    assert.ok(await eventually(() => received.length === 2 && accepted.length === 2), 'a new flow carried the next datagram');
    udp.close();
  });

  it('closes the local connection when the dial is refused, and reports one line naming the service and the reason', async () => {
    const reports: string[] = [];
    const t = await tunneler(client, reports);
    assert.equal(stateOf(t, 'unhosted'), 'listening');
    const socket = await tcpTo(ports.unhosted);
    const localPort = socket.localPort;
    socket.resume();
    // The tunneler's FIN: this end is half-open (allowHalfOpen), so 'end' is what it sees.
    await once(socket, 'end');
    assert.equal(reports.length, 1);
    assert.match(reports[0]!, new RegExp(`^service 'unhosted': the dial for 127\\.0\\.0\\.1:${localPort} \\(tcp 127\\.0\\.0\\.1:${ports.unhosted}\\) failed: .+`));
    // Positive control: a hosted service's port on the same tunneler answers.
    const echo = await tcpTo(ports.echo);
    echo.end('still here');
    assert.equal((await readAll(echo)).toString(), 'still here');
  });

  it('follows Dial access within the poll interval: says there is nothing to intercept, listens once allowed, and closes the listener and its connections once not, also after its API session was deleted', async () => {
    const late = await sdkIdentity(ctl, 'tunnel-late');
    const lateConfig = await interceptConfig('late-intercept', { protocols: ['tcp'], addresses: ['127.0.0.1'], portRanges: [{ low: ports.late, high: ports.late }] });
    const serviceId = await sdkService(admin, 'late', { dialers: [], hosts: [host.id], configs: [lateConfig], encryptionRequired: false });
    const lateListener = await hosting.listen('late', (conn) => conn.pipe(conn));
    const t = await tunneler(late);
    assert.deepEqual(t.view, { rows: [], notes: ["no service that identity 'tunnel-late' may dial has an intercept.v1 config; following updates"] });
    // The controller forgets the tunneler's API session: its next poll logs in again, as the SDK does.
    const sessions = (await admin.get(`/api-sessions?filter=${encodeURIComponent(`identityId = "${late.id}"`)}`)).json().data as { id: string }[];
    assert.ok(sessions.length > 0, 'the tunneler has an API session');
    for (const session of sessions) assert.equal((await admin.del(`/api-sessions/${session.id}`)).status, 200);

    const policyId = await createdId(admin, '/service-policies', { name: 'late-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${late.id}`], serviceRoles: [`@${serviceId}`] });
    assert.ok(await eventually(() => stateOf(t, 'late') === 'listening'), `the new intercept listens (view ${JSON.stringify(t.view)})`);
    const open = await tcpTo(ports.late);
    open.write('hello');
    assert.equal((await once(open, 'data'))[0].toString(), 'hello');

    // Waited for from now: the end may come before the view is looked at.
    const ended = once(open, 'end');
    assert.equal((await admin.del(`/service-policies/${policyId}`)).status, 200);
    assert.ok(await eventually(() => stateOf(t, 'late') === undefined), 'the intercept is gone');
    await ended;
    assert.ok(await refused(ports.late), 'nothing listens on the port any more');
    assert.equal(t.view.notes.length, 1);
    await lateListener.close();
  });

  it('moves a listener when the intercept config changes: the old port closes, the new one relays', async () => {
    const [from, to] = [await stablePort(), await stablePort()];
    const configId = await interceptConfig('moving-intercept', { protocols: ['tcp'], addresses: ['127.0.0.1'], portRanges: [{ low: from, high: from }] });
    const serviceId = await sdkService(admin, 'moving', { dialers: [client.id], hosts: [host.id], configs: [configId], encryptionRequired: false });
    const listener = await hosting.listen('moving', (conn) => conn.pipe(conn));
    try {
      const t = await tunneler(client);
      assert.equal(t.view.rows.find((r) => r.service === 'moving')?.listen, `127.0.0.1:${from}`);
      const patched = await admin.patch(`/configs/${configId}`, { data: { protocols: ['tcp'], addresses: ['127.0.0.1'], portRanges: [{ low: to, high: to }] } });
      assert.equal(patched.status, 200, patched.text);
      assert.ok(await eventually(() => t.view.rows.find((r) => r.service === 'moving')?.listen === `127.0.0.1:${to}`), `moved (view ${JSON.stringify(t.view.rows)})`);
      assert.ok(await refused(from), 'the old port is closed');
      const socket = await tcpTo(to);
      socket.end('moved');
      assert.equal((await readAll(socket)).toString(), 'moved');
    } finally {
      await listener.close();
      await admin.del(`/services/${serviceId}`);
    }
  });

  it('svc tunnel prints the table (listening, stand-in, cannot listen, malformed config skipped) and on SIGTERM closes its listeners and exits 0', async () => {
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(ports.busy, '127.0.0.1', resolve));
    const busyConfig = await interceptConfig('busy-intercept', { protocols: ['tcp'], addresses: ['127.0.0.1'], portRanges: [{ low: ports.busy, high: ports.busy }] });
    const busyId = await sdkService(admin, 'busy', { dialers: [client.id], hosts: [], configs: [busyConfig] });
    const brokenConfig = await interceptConfig('broken-intercept', { protocols: ['tcp'], addresses: ['127.0.0.1'], portRanges: [{ low: ports.broken, high: 1 }] });
    const brokenId = await sdkService(admin, 'broken', { dialers: [client.id], hosts: [], configs: [brokenConfig] });
    try {
      const cli = spawnCli(['tunnel', '--identity', clientFile, '--refresh', '0.2']);
      await cli.waitForOutput('note: ');
      const lines = cli.stdout().trimEnd().split('\n');
      assert.equal(lines[0], "identity 'tunnel-client': 5 intercepts");
      assert.match(lines[1]!, /^service +protocol +intercept +listen +state$/);
      const row = (service: string, protocol: string) => lines.find((l) => l.startsWith(`${service} `) && l.includes(` ${protocol} `))?.replace(/ +/g, ' ');
      assert.equal(row('echo', 'tcp'), `echo tcp 127.0.0.1:${ports.echo} 127.0.0.1:${ports.echo} listening`);
      assert.equal(row('echo', 'udp'), `echo udp 127.0.0.1:${ports.echo} 127.0.0.1:${ports.echo} listening`);
      assert.equal(row('named', 'tcp'), `named tcp echo.internal:${ports.named} 127.0.0.1:${ports.named} listening (not interceptable without root)`);
      assert.equal(row('busy', 'tcp'), `busy tcp 127.0.0.1:${ports.busy} 127.0.0.1:${ports.busy} cannot listen: in use (EADDRINUSE)`);
      assert.equal(row('unhosted', 'tcp'), `unhosted tcp 127.0.0.1:${ports.unhosted} 127.0.0.1:${ports.unhosted} listening`);
      assert.ok(lines.includes(`note: service 'broken' is not intercepted: its intercept.v1 config is malformed: field 'portRanges[0]': low ${ports.broken} is above high 1`), lines.join('\n'));
      const echo = await tcpTo(ports.echo);
      echo.end('via the command');
      assert.equal((await readAll(echo)).toString(), 'via the command');

      assert.equal(await cli.stop('SIGTERM'), 0);
      assert.match(cli.stdout(), /stopping \(SIGTERM\)\.\.\./);
      assert.ok(await refused(ports.echo), 'the listener is closed');
    } finally {
      busy.close();
      await admin.del(`/services/${busyId}`);
      await admin.del(`/services/${brokenId}`);
    }
  });

  it('svc tunnel --json prints what it intercepts as one JSON line per change', async () => {
    const cli = spawnCli(['tunnel', '--identity', clientFile, '--json', '--port-offset', '0']);
    await cli.waitForOutput('\n');
    const first = JSON.parse(cli.stdout().split('\n')[0]!);
    assert.equal(first.identity, 'tunnel-client');
    assert.deepEqual(first.intercepts.find((r: { service: string; protocol: string }) => r.service === 'echo' && r.protocol === 'tcp'), { service: 'echo', protocol: 'tcp', intercept: `127.0.0.1:${ports.echo}`, listen: `127.0.0.1:${ports.echo}`, state: 'listening' });
    assert.deepEqual(first.notes, []);
    assert.equal(await cli.stop('SIGINT'), 0);
  });

  it('svc tunnel refuses a missing or garbled identity file and bad options with exit 2 and one sentence each', async () => {
    const missing = await runCli(['tunnel', '--identity', join(dir, 'absent.json')]);
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr, `svc: --identity: identity file '${join(dir, 'absent.json')}' cannot be read (ENOENT)\n`);
    const garbled = join(dir, 'garbled.json');
    writeFileSync(garbled, '{"ztAPI": ');
    const notJson = await runCli(['tunnel', '--identity', garbled]);
    assert.equal(notJson.code, 2);
    assert.match(notJson.stderr, new RegExp(`^svc: --identity: identity file '${garbled.replace(/[.]/g, '\\.')}' is not JSON: `));
    const cases: Array<[string[], string]> = [
      [['--bind', 'localhost'], "svc: --bind: 'localhost' is not an IP address (such as 127.0.0.1 or ::1)\n"],
      [['--port-offset', '1.5'], "svc: --port-offset: '1.5' is not a whole number from -65535 to 65535\n"],
      [['--refresh', '0'], "svc: --refresh: '0' is not a number of seconds above 0 and at most 3600\n"],
    ];
    for (const [args, stderr] of cases) {
      const result = await runCli(['tunnel', '--identity', clientFile, ...args]);
      assert.equal(result.code, 2, args.join(' '));
      assert.equal(result.stderr, stderr);
    }
  });
});
