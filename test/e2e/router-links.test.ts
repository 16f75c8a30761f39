/**
 * Links between routers and circuits across them (issue 43), with three `svc router run` processes on loopback and a
 * real controller. Link groups decide who links with whom: A dials C directly (group x, through a relay the test can
 * freeze) and B (group ab); B dials C (group y); so A, B and C have three links and A reaches C in one hop or two.
 * An SDK at A dials a service an SDK hosts at C. The controller lists the links with their latency and each circuit
 * with its path; a stalled link is seen by its probes and avoided; a router that dies ends the circuits through it
 * with a reason and new dials go around it; a service hosted through two routers keeps answering when one dies; a
 * link from a certificate that is not an enrolled router's is refused.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:tls';
import { after, afterEach, before, describe, it } from 'node:test';
import { dialHello } from '../../src/channel/channel.js';
import { ContentType, encode } from '../../src/channel/message.js';
import { LINK_ALPN, LinkHeader } from '../../src/router/links/link-protocol.js';
import { createContext, type SvcConnection, type SvcContext } from '../../src/sdk/index.js';
import { spawnCli, stopLeftRunning, type CliProcess } from '../helpers/cli.js';
import type { TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { issueClientCertificate } from '../helpers/fixtures.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { freePort } from '../helpers/ports.js';
import { enrolledRouter, eventually, writeRouterFile, type EnrolledRouter } from '../helpers/routers.js';
import { readAll, sdkIdentity, sdkService, sdkTestController, type SdkTestIdentity } from '../helpers/sdk.js';
import { tcpRelay } from '../helpers/tcp-relay.js';

const FAST_BACKOFF = { minRetryInterval: '100ms', maxRetryInterval: '1s', retryBackoffFactor: 2 };
const PROBE_MS = 200;

describe(`links and circuits across three router processes (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let relay: Awaited<ReturnType<typeof tcpRelay>>;
  const routers = new Map<string, EnrolledRouter>();
  const processes = new Map<string, CliProcess>();
  const contexts: SvcContext[] = [];
  let host: SdkTestIdentity;
  let dialer: SdkTestIdentity;
  const ports = { b: 0, cx: 0, cy: 0 };

  const id = (name: string) => routers.get(name)!.id;
  const run = async (name: string) => {
    const cli = spawnCli(['router', 'run', '--config', routers.get(name)!.configPath], { SVC_LOG_LEVEL: 'info' });
    await cli.waitForOutput('svc router running', 60_000);
    processes.set(name, cli);
    assert.ok(await eventually(async () => (await admin.get(`/edge-routers/${id(name)}`)).json().data.isOnline === true), `router ${name} online`);
  };
  const links = async () => (await admin.get('/links')).json().data as Array<Record<string, any>>;
  const linkBetween = async (from: string, to: string) => (await links()).find((link) => link.sourceRouter?.id === id(from) && link.destRouter?.id === id(to));
  const circuits = async () => (await admin.get('/circuits')).json().data as Array<Record<string, any>>;
  const pathOf = (circuit: Record<string, any>) => (circuit.path.nodes as Array<{ id: string }>).map((node) => node.id);
  const context = async (who: SdkTestIdentity) => {
    const ctx = await createContext({ identity: who.file });
    contexts.push(ctx);
    return ctx;
  };
  const echo = (conn: SvcConnection) => void conn.pipe(conn);
  /** Dials `echo` from the SDK at A and reads back what it wrote; the circuit's path while it is open. */
  const roundTrip = async (what: string) => {
    const conn = await (await context(dialer)).dial('echo');
    const circuit = (await circuits()).find((c) => c.service?.name === 'echo');
    conn.end(what);
    const back = (await readAll(conn)).toString();
    return { back, path: circuit ? pathOf(circuit) : [] };
  };
  const hostAt = async (...names: string[]) => {
    const ctx = await context(host);
    await ctx.listen('echo', echo);
    assert.ok(await eventually(async () => (await admin.get('/terminators')).json().data.length === names.length), `${names.length} terminator(s)`);
    return ctx;
  };

  before(async () => {
    ctl = await sdkTestController();
    admin = managementClient(ctl, await ctl.adminToken());
    const endpoints = [`tls:127.0.0.1:${ctl.ports[1]}`];
    ports.b = await freePort();
    ports.cx = await freePort();
    ports.cy = await freePort();
    relay = await tcpRelay(new URL(`tcp://127.0.0.1:${ports.cx}`));
    const linkFiles: Record<string, Record<string, unknown>> = {
      a: { dialers: [{ binding: 'transport', groups: ['x', 'ab'], healthyDialBackoff: FAST_BACKOFF }] },
      b: {
        listeners: [{ binding: 'transport', bind: `tls:127.0.0.1:${ports.b}`, advertise: `127.0.0.1:${ports.b}`, groups: ['ab'] }],
        dialers: [{ binding: 'transport', groups: ['y'], healthyDialBackoff: FAST_BACKOFF }],
      },
      c: {
        listeners: [
          { binding: 'transport', bind: `tls:127.0.0.1:${ports.cx}`, advertise: `127.0.0.1:${relay.port}`, groups: ['x'] },
          { binding: 'transport', bind: `tls:127.0.0.1:${ports.cy}`, advertise: `127.0.0.1:${ports.cy}`, groups: ['y'] },
        ],
      },
    };
    for (const name of ['a', 'b', 'c']) {
      const router = await enrolledRouter(admin, (token, body) => ctl.fetch(`/edge/client/v1/enroll?method=erott&token=${token}`, { method: 'POST', body }), `er-link-${name}`, undefined, { serverSans: ['IP:127.0.0.1'] });
      writeRouterFile(router, {
        endpoints,
        advertise: `127.0.0.1:${router.edgePort}`,
        extra: { link: linkFiles[name], forwarder: { latencyProbeInterval: PROBE_MS } },
      });
      routers.set(name, router);
    }
    dialer = await sdkIdentity(ctl, 'link-dialer');
    host = await sdkIdentity(ctl, 'link-host');
    // The dialer may use router A only; the host B and C; every service every router.
    await createdId(admin, '/edge-router-policies', { name: 'dialer-at-a', semantic: 'AnyOf', identityRoles: [`@${dialer.id}`], edgeRouterRoles: [`@${id('a')}`] });
    await createdId(admin, '/edge-router-policies', { name: 'host-at-c', semantic: 'AnyOf', identityRoles: [`@${host.id}`], edgeRouterRoles: [`@${id('c')}`] });
    await createdId(admin, '/service-edge-router-policies', { name: 'all', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#all'] });
    await sdkService(admin, 'echo', { dialers: [dialer.id], hosts: [host.id], encryptionRequired: true });
    for (const name of ['a', 'b', 'c']) await run(name);
    assert.ok(await eventually(async () => (await links()).filter((link) => link.state === 'up' || link.state === 'Connected').length === 3, 20_000), 'three links up');
  });
  afterEach(async () => {
    for (const ctx of contexts.splice(0)) await ctx.close();
    relay.thaw();
  });
  after(async () => {
    await stopLeftRunning();
    for (const router of routers.values()) router.remove();
    await relay?.cut();
    await ctl?.close();
  });

  it('links the routers that share a link group, and only those; the controller lists each link with its latency', async () => {
    const all = await links();
    const pairs = all.map((link) => `${link.sourceRouter.name}->${link.destRouter.name}`).sort();
    assert.deepEqual(pairs, ['er-link-a->er-link-b', 'er-link-a->er-link-c', 'er-link-b->er-link-c']);
    assert.ok(await eventually(async () => (await links()).every((link) => typeof link.latencyMs === 'number' || typeof link.sourceLatency === 'number')), 'latency measured');
  });

  it('carries a stream from an SDK at one router to a host at another over their link, and lists the circuit with its path', async () => {
    await hostAt('c');
    const { back, path } = await roundTrip('across one link');
    assert.equal(back, 'across one link');
    assert.deepEqual(path, [id('a'), id('c')]);
    assert.ok(await eventually(async () => (await circuits()).length === 0), 'the ended circuit is forgotten');
  });

  it('sees a stalled link by its probes, routes new circuits through a third router, and uses the link again when it answers', async () => {
    await hostAt('c');
    relay.freeze();
    assert.ok(await eventually(async () => (await linkBetween('a', 'c'))?.state === 'stalled', 5_000), 'the frozen link reads stalled');
    const around = await roundTrip('around the stall');
    assert.equal(around.back, 'around the stall');
    assert.deepEqual(around.path, [id('a'), id('b'), id('c')]);
    relay.thaw();
    assert.ok(await eventually(async () => (await linkBetween('a', 'c'))?.state === 'up', 5_000), 'the link answers again');
    assert.deepEqual((await roundTrip('direct again')).path, [id('a'), id('c')]);
  });

  it('ends the circuits through a router that dies, with a reason, and new dials go around it', async () => {
    await hostAt('c');
    relay.freeze();
    assert.ok(await eventually(async () => (await linkBetween('a', 'c'))?.state === 'stalled', 5_000));
    const conn = await (await context(dialer)).dial('echo');
    conn.write('before');
    const errorOrClose = Promise.race([once(conn, 'close'), once(conn, 'error')]);
    await processes.get('b')!.stop('SIGKILL');
    await errorOrClose;
    relay.thaw();
    assert.ok(await eventually(async () => (await linkBetween('a', 'c'))?.state === 'up', 5_000));
    assert.equal((await roundTrip('after the loss')).back, 'after the loss');
    await run('b');
    assert.ok(await eventually(async () => (await links()).length === 3, 10_000), 'B links again after its restart');
  });

  it('keeps answering new dials when one of two routers hosting a service dies', async () => {
    await createdId(admin, '/edge-router-policies', { name: 'host-at-b', semantic: 'AnyOf', identityRoles: [`@${host.id}`], edgeRouterRoles: [`@${id('b')}`] });
    await hostAt('b', 'c');
    await processes.get('c')!.stop('SIGKILL');
    const { back, path } = await roundTrip('still answering');
    assert.equal(back, 'still answering');
    assert.deepEqual(path, [id('a'), id('b')]);
    await run('c');
  });

  it('refuses a link from a certificate that is not an enrolled router’s, naming why, and a link without a certificate', async () => {
    const stranger = await issueClientCertificate(ctl.pki, 'not-a-router');
    const socket = connect({ host: '127.0.0.1', port: ports.b, key: stranger.keyPem, cert: stranger.certPem, ca: ctl.ca, ALPNProtocols: [LINK_ALPN] });
    await once(socket, 'secureConnect');
    await assert.rejects(
      dialHello(socket, { contentType: ContentType.Hello, headers: [[LinkHeader.RouterId, encode.string(id('a'))], [LinkHeader.LinkId, encode.string('stranger-link')]], body: '{"groups":["ab"]}' }, { timeoutMs: 5_000, heartbeat: false }),
      /not the current certificate of an enrolled, online router/,
    );
    // Without a certificate the handshake fails (TLS 1.3 may let the client finish first; the server then closes).
    const bare = connect({ host: '127.0.0.1', port: ports.b, ca: ctl.ca, ALPNProtocols: [LINK_ALPN] });
    bare.on('error', () => undefined);
    await once(bare, 'close');
    assert.equal((await links()).length, 3, 'no link was made');
  });
});
