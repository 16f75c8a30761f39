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
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { after, afterEach, before, describe, it } from 'node:test';
import { dialHello } from '../../src/channel/channel.js';
import { ContentType, encode } from '../../src/channel/message.js';
import { LINK_ALPN, LinkHeader } from '../../src/router/links/link-protocol.js';
import { createContext, type SvcConnection, type SvcContext } from '../../src/sdk/index.js';
import { spawnCli, stopLeftRunning, type CliProcess } from '../helpers/cli.js';
import type { TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
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
  /** The direct link A-C is up and measured under 20 ms (the first probe answered after a stall may have waited). */
  const recoveredLink = async () => {
    const link = await linkBetween('a', 'c');
    return link?.state === 'up' && typeof link.sourceLatency === 'number' && link.sourceLatency < 20_000_000;
  };
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
    // Ended circuits are reported within a second: the one to read is the one this dial made.
    const before = new Set((await circuits()).map((c) => c.id));
    const conn = await (await context(dialer)).dial('echo');
    const circuit = (await circuits()).find((c) => c.service?.name === 'echo' && !before.has(c.id));
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
    // Going through B costs more than any loopback latency: A reaches C directly unless that link is unusable.
    assert.equal((await admin.patch(`/edge-routers/${id('b')}`, { cost: 100 })).status, 200);
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
    assert.deepEqual(path, [id('a'), id('c')], JSON.stringify({ links: await links(), ids: [...routers.entries()].map(([n, r]) => [n, r.id]) }));
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
    // Up again, and measured again: the controller routes by latency, and the first probe answered may have waited.
    assert.ok(await eventually(recoveredLink, 5_000), `the link answers again: ${JSON.stringify(await linkBetween('a', 'c'))}`);
    assert.deepEqual((await roundTrip('direct again')).path, [id('a'), id('c')]);
  });

  it('ends the circuits through a router that dies, with a reason, and new dials go around it', async () => {
    await hostAt('c');
    relay.freeze();
    assert.ok(await eventually(async () => (await linkBetween('a', 'c'))?.state === 'stalled', 5_000), `stalled: ${JSON.stringify(await links())}`);
    const conn = await (await context(dialer)).dial('echo');
    conn.write('before');
    conn.on('error', () => undefined);
    // Read, so that the end of the connection is seen.
    const ended = readAll(conn).then(
      () => 'ended',
      (error: Error) => error.message,
    );
    await processes.get('b')!.stop('SIGKILL');
    assert.ok(await ended, 'the connection through B ends');
    relay.thaw();
    assert.ok(await eventually(recoveredLink, 5_000));
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

  it('refuses a link from the certificate of a router that was deleted, naming why, and a link without a certificate', async () => {
    const gone = await enrolledRouter(admin, (token, body) => ctl.fetch(`/edge/client/v1/enroll?method=erott&token=${token}`, { method: 'POST', body }), 'er-link-gone');
    assert.equal((await admin.del(`/edge-routers/${gone.id}`)).status, 200);
    const socket = connect({ host: '127.0.0.1', port: ports.b, key: gone.keyPem, cert: gone.certPem, ca: readFileSync(join(gone.dir, 'ca.pem')), ALPNProtocols: [LINK_ALPN] });
    gone.remove();
    socket.on('error', () => undefined);
    // The refusal comes in the TLS handshake or as the answer to the Hello; either way B says why in its log.
    const refused = await Promise.race([
      once(socket, 'secureConnect').then(() =>
        dialHello(socket, { contentType: ContentType.Hello, headers: [[LinkHeader.RouterId, encode.string(gone.id)], [LinkHeader.LinkId, encode.string('stranger-link')]], body: '{"groups":["ab"]}' }, { timeoutMs: 5_000, heartbeat: false }).then(
          () => 'accepted',
          (error: Error) => error.message,
        ),
      ),
      once(socket, 'close').then(() => 'closed in the handshake'),
    ]);
    assert.notEqual(refused, 'accepted');
    assert.ok(await eventually(() => /a link was refused: the certificate \(SHA-1 [0-9a-f]{40}\) is not the current certificate of an enrolled, online router|a link's TLS handshake failed/.test(processes.get('b')!.stdout() + processes.get('b')!.stderr())), `B says why it refused (${refused})`);
    // Without a certificate the handshake fails (TLS 1.3 may let the client finish first; the server then closes).
    const bare = connect({ host: '127.0.0.1', port: ports.b, rejectUnauthorized: false, ALPNProtocols: [LINK_ALPN] });
    const handshake = await new Promise<string>((resolve) => {
      bare.once('error', (error) => resolve(error.message));
      bare.once('close', () => resolve('closed'));
    });
    assert.match(handshake, /certificate required|closed/);
    assert.equal((await links()).length, 3, 'no link was made');
  });
});
