/**
 * The TypeScript SDK end to end (issue 42 item 6): a real controller, two routers run in this process, and SDK
 * contexts that log in with identity files, host a service (`listen`) and dial it (`dial`) through the routers' edge
 * listeners over real TLS. Bytes flow both ways, end-to-end encrypted when the service requires it; half-close,
 * close, backpressure, caller id and app data reach the other end; a listener binds on every router it may (or
 * `maxRouters`), and binds again after its terminator is deleted or its router restarts; a refreshed OIDC token
 * reaches the router by UpdateToken; a dial of a service nobody hosts is refused naming it.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, afterEach, before, describe, it } from 'node:test';
import { openApiSession } from '../../src/sdk/api-session.js';
import { controllerHttp } from '../../src/sdk/controller-http.js';
import { loadIdentity } from '../../src/sdk/identity-file.js';
import { createContext, SdkError, type SvcConnection, type SvcContext } from '../../src/sdk/index.js';
import { routerLink } from '../../src/sdk/router-link.js';
import type { RunningRouter } from '../../src/router/run.js';
import type { TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { managementClient, type ManagementClient } from '../helpers/management.js';
import { eventually, runRouterInProcess, type EnrolledRouter } from '../helpers/routers.js';
import { openRouterPolicies, sdkTestController, readAll, sdkIdentity, sdkRouter, sdkService, type SdkTestIdentity } from '../helpers/sdk.js';

/** The next value `emitter` emits for `event`. */
const next = <T>(emitter: NodeJS.EventEmitter, event: string) => once(emitter, event).then(([value]) => value as T);

describe(`SDK dial and listen through routers (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  const routers: EnrolledRouter[] = [];
  const running = new Map<string, RunningRouter>();
  let host: SdkTestIdentity;
  let dialer: SdkTestIdentity;
  const contexts: SvcContext[] = [];

  const context = async (who: SdkTestIdentity, auth: 'auto' | 'legacy' = 'auto') => {
    const ctx = await createContext({ identity: who.file, auth });
    contexts.push(ctx);
    return ctx;
  };
  /** Echoes every accepted connection: what it reads it writes back, and it ends when its reader ends. */
  const echo = (conn: SvcConnection) => void conn.pipe(conn);
  const terminatorCount = async () => (await admin.get('/terminators')).json().data.length as number;
  /** Terminators are created at the controller after the router answers Bind: a dial waits for them. */
  const hosted = async (count: number) => assert.ok(await eventually(async () => (await terminatorCount()) === count), `${count} terminator(s)`);
  const start = async (router: EnrolledRouter) => {
    const er = (await runRouterInProcess(router)).running;
    running.set(router.name, er);
    assert.ok(await eventually(() => er.control.connected && er.trust.current !== undefined), `router ${router.name} connected with its trust state`);
    assert.ok(await eventually(async () => (await admin.get(`/edge-routers/${router.id}`)).json().data.isOnline === true), `router ${router.name} online`);
  };

  before(async () => {
    ctl = await sdkTestController();
    admin = managementClient(ctl, await ctl.adminToken());
    for (const name of ['er-sdk-1', 'er-sdk-2']) routers.push(await sdkRouter(ctl, admin, name));
    for (const router of routers) await start(router);
    host = await sdkIdentity(ctl, 'sdk-host');
    dialer = await sdkIdentity(ctl, 'sdk-dialer');
    await openRouterPolicies(admin);
    await sdkService(admin, 'echo', { dialers: [dialer.id], hosts: [host.id], encryptionRequired: true });
    await sdkService(admin, 'plain', { dialers: [dialer.id], hosts: [host.id], encryptionRequired: false });
  });
  // Each test's contexts go with it (their listeners unbind), so the next test starts with no terminator.
  afterEach(async () => {
    for (const ctx of contexts.splice(0)) await ctx.close();
    await eventually(async () => (await terminatorCount()) === 0);
  });
  after(async () => {
    for (const er of running.values()) await er.stop();
    for (const router of routers) router.remove();
    await ctl?.close();
  });

  it('dials a service another context hosts, end-to-end encrypted, and reads back what it wrote', async () => {
    const hosting = await context(host);
    await hosting.listen('echo', echo);
    await hosted(2);
    const conn = await (await context(dialer)).dial('echo');
    conn.end('hello over the overlay');
    assert.equal((await readAll(conn)).toString(), 'hello over the overlay');
  });

  it('holds a writer back while the reader does not read (bounded buffers), then delivers all 64 MiB intact', async () => {
    const hosting = await context(host);
    const accepted: SvcConnection[] = [];
    await hosting.listen('plain', (conn) => {
      conn.pause();
      accepted.push(conn);
    });
    await hosted(2);
    const conn = await (await context(dialer)).dial('plain');
    const payload = Buffer.alloc(64 * 1_048_576);
    for (let i = 0; i < payload.length; i += 4096) payload[i] = (i / 4096) & 0xff;
    let written = false;
    assert.equal(conn.write(payload, () => (written = true)), false, 'write() asks the writer to wait');
    conn.end();
    assert.ok(await eventually(() => accepted.length === 1 && accepted[0]!.readableLength >= accepted[0]!.readableHighWaterMark), 'the reader buffer filled');
    const hostSide = accepted[0]!;
    // The SDK paused the router socket: what it holds stays near its high-water mark, and the writer still waits.
    assert.ok(hostSide.readableLength < 1_048_576, `the paused reader holds ${hostSide.readableLength} bytes`);
    assert.equal(written, false, 'the 64 MiB write has not completed while nothing reads');
    const received = await readAll(hostSide);
    assert.ok(received.equals(payload), 'every byte arrives, in order');
    assert.ok(await eventually(() => written), 'the write completes once read');
  });

  it('half-closes: the host reads the end of input, still answers with caller id and app data, and the dialer reads it', async () => {
    const hosting = await context(host);
    const accepted: SvcConnection[] = [];
    await hosting.listen('echo', async (conn) => {
      accepted.push(conn);
      const request = await readAll(conn);
      conn.end(`got ${request.length} bytes from ${conn.callerId}; app data ${conn.appData?.toString()}`);
    });
    await hosted(2);
    const conn = await (await context(dialer)).dial('echo', { appData: Buffer.from('{"dst":"x"}') });
    const closed = once(conn, 'close');
    conn.end('12345');
    assert.equal((await readAll(conn)).toString(), 'got 5 bytes from sdk-dialer; app data {"dst":"x"}');
    await closed;
    assert.ok(accepted[0]?.circuitId, 'the accepted connection names its circuit');
  });

  it('closing one end (StateClosed) ends the other end', async () => {
    const hosting = await context(host);
    const accepted: SvcConnection[] = [];
    await hosting.listen('echo', (conn) => void accepted.push(conn));
    await hosted(2);
    const conn = await (await context(dialer)).dial('echo');
    assert.ok(await eventually(() => accepted.length === 1));
    const hostSide = accepted[0]!;
    hostSide.resume();
    const ended = once(hostSide, 'close');
    conn.destroy();
    await ended;
  });

  it('works with legacy API sessions on both ends', async () => {
    await (await context(host, 'legacy')).listen('echo', echo);
    await hosted(2);
    const conn = await (await context(dialer, 'legacy')).dial('echo');
    conn.end('legacy');
    assert.equal((await readAll(conn)).toString(), 'legacy');
  });

  it('binds on every router it may use by default, and on one with maxRouters 1', async () => {
    const all = await (await context(host)).listen('echo', echo);
    assert.deepEqual([...all.routers].sort(), ['er-sdk-1', 'er-sdk-2']);
    await hosted(2);
    await all.close();
    const one = await (await context(host)).listen('plain', echo, { maxRouters: 1 });
    assert.equal(one.routers.length, 1);
  });

  it('binds again when the controller deletes its terminator (StateClosed on the binding), and dials work again', async () => {
    const listener = await (await context(host)).listen('echo', echo, { maxRouters: 1 });
    await hosted(1);
    const terminators: Array<{ id: string }> = (await admin.get('/terminators')).json().data;
    const unbound = next<string>(listener, 'unbound');
    const rebound = next<string>(listener, 'bound');
    assert.equal((await admin.del(`/terminators/${terminators[0]!.id}`)).status, 200);
    await unbound;
    await rebound;
    await hosted(1);
    const conn = await (await context(dialer)).dial('echo');
    conn.end('again');
    assert.equal((await readAll(conn)).toString(), 'again');
  });

  it('passes a refreshed OIDC token to the router by UpdateToken on the same channel; a token of another API session makes it reconnect', async () => {
    const id = loadIdentity(dialer.file);
    const http = controllerHttp(id);
    const session = await openApiSession({ http, clientApi: id.clientApi, auth: 'oidc' });
    const other = await openApiSession({ http, clientApi: id.clientApi, auth: 'oidc' });
    const router = routers[0]!;
    const link = routerLink(router.name, `tls://127.0.0.1:${router.edgePort}`, { certPem: id.certPem, keyPem: id.keyPem, caPem: ctl.ca, token: () => session.token });
    try {
      const channel = await link.ready();
      await session.refresh();
      assert.equal(await link.updateToken(session.token), 'updated');
      assert.equal(await link.ready(), channel);
      assert.equal(channel.closed, false);
      assert.equal(await link.updateToken(other.token), 'reconnecting');
      assert.equal(channel.closed, true);
      const again = await link.ready();
      assert.notEqual(again, channel);
    } finally {
      link.close();
      await session.close();
      await other.close();
    }
  });

  it('refuses to dial a service nobody hosts with DIAL_FAILED naming it; hosted, the dial works; unbound, it is refused again', async () => {
    const dialling = await context(dialer);
    const refusal = async () => {
      const error = await dialling.dial('echo').then(
        () => assert.fail('dialled'),
        (e: unknown) => e as SdkError,
      );
      assert.ok(error instanceof SdkError, String(error));
      assert.equal(error.code, 'DIAL_FAILED');
      assert.match(error.message, /^router er-sdk-\d refused the dial of service 'echo': /);
    };
    await refusal();
    const listener = await (await context(host)).listen('echo', echo);
    await hosted(2);
    const conn = await dialling.dial('echo');
    conn.end('now');
    assert.equal((await readAll(conn)).toString(), 'now');
    await listener.close();
    await hosted(0);
    await refusal();
  });

  it('binds again on a router that restarts, while dials go through the other one', async () => {
    const listener = await (await context(host)).listen('echo', echo);
    await hosted(2);
    const second = routers[1]!;
    const unbound = next<string>(listener, 'unbound');
    await running.get(second.name)!.stop();
    assert.equal(await unbound, second.name);
    const dialling = await context(dialer);
    const during = await dialling.dial('echo');
    during.end('during');
    assert.equal((await readAll(during)).toString(), 'during');
    const rebound = next<string>(listener, 'bound');
    await start(second);
    assert.equal(await rebound, second.name);
    assert.deepEqual([...listener.routers].sort(), ['er-sdk-1', 'er-sdk-2']);
  });

  it('ends a stream in mid-flow when an administrator ends the dialer\'s API session', async () => {
    const revoked = await sdkIdentity(ctl, 'sdk-revoked');
    const plainId = (await admin.get(`/services?filter=${encodeURIComponent('name = "plain"')}`)).json().data[0].id;
    await admin.post('/service-policies', { name: 'plain-dial-revoked', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${revoked.id}`], serviceRoles: [`@${plainId}`] });
    await (await context(host)).listen('plain', echo);
    await hosted(2);
    const conn = await (await context(revoked)).dial('plain');
    let failure: Error | undefined;
    conn.on('error', (error: Error) => (failure = error));
    conn.write('ping');
    assert.equal(String(await next<Buffer>(conn, 'data')), 'ping', 'the stream flows');
    // events.once would reject on the 'error' the connection emits first: wait for the close itself.
    const closed = new Promise((resolve) => conn.once('close', resolve));
    const sessions = (await admin.get(`/api-sessions?filter=${encodeURIComponent(`identityId = "${revoked.id}"`)}`)).json().data as { id: string }[];
    assert.ok(sessions.length > 0, 'the dialer has an API session');
    for (const session of sessions) assert.equal((await admin.del(`/api-sessions/${session.id}`)).status, 200);
    await closed;
    assert.equal(conn.destroyed, true, 'the connection is over');
    assert.match(String(failure?.message), /connection to service 'plain' lost/, 'the reader is told why');
  });
});
