/**
 * The router tunnel's two circuit ends joined on loopback (issue 43, decision 0071): a proxy-mode listener's end and
 * a host-mode egress end around real TCP and UDP targets, with real libsodium for end-to-end encryption and a
 * recording control client (the seam through which the tunnel tells the controller about failed targets). No
 * router process: the dial joins the two ends directly, as the fabric does when one router hosts what it proxies.
 * @store-independent: no store; sockets on loopback only.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { setImmediate as turn } from 'node:timers/promises';
import { afterEach, describe, it } from 'node:test';
import pino from 'pino';
import { ControlType } from '../../src/control-protocol/catalogue.js';
import { RouterSetupError } from '../../src/router/errors.js';
import { EgressError, HIGH_WATER_BYTES, PayloadFlag } from '../../src/router/fabric/circuit-end.js';
import { parseHostConfig, type HostTarget } from '../../src/router/tunnel/host-config.js';
import { createHostEgress } from '../../src/router/tunnel/host-egress.js';
import { startProxyListeners, type ProxyDial, type ProxyListeners } from '../../src/router/tunnel/proxy-listeners.js';
import { e2eeSession, newKeyPair, sodiumReady } from '../../src/sdk/e2ee.js';
import { closedPort, dialThrough, echoTarget, readAll, recordingControl, recordingEnd, recordingLog, tcpTarget, udpEchoTarget } from '../helpers/tunnel.js';

const silent = pino({ level: 'silent' });
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function target(config: Record<string, unknown>, encryptionRequired = false): HostTarget {
  const { targets } = parseHostConfig({ id: 'svc1', name: 'web', encryptionRequired, configType: 'host.v1', config });
  return targets[0]!;
}

function terminatorAnswer(body: { id: string; precedence?: string }) {
  return { id: body.id, serviceId: 'svc1', binding: 'tunnel', address: 'tcp:x:1', cost: 0, precedence: body.precedence ?? 'default' };
}

/** A host egress with terminator `t1` hosting `hosted`, and the control requests it made. */
function egressFor(hosted: HostTarget) {
  const control = recordingControl((type, body) => (type === ControlType.UpdateTerminator ? terminatorAnswer(body) : {}));
  const egress = createHostEgress({ targetFor: (id) => (id === 't1' ? hosted : undefined), control, log: silent });
  cleanups.push(() => egress.stop());
  return { egress, control };
}

async function proxyTo(dial: ProxyDial, log = silent): Promise<{ proxy: ProxyListeners; port: number }> {
  const proxy = await startProxyListeners({ host: '127.0.0.1', services: [{ name: 'web', port: 0 }], identity: () => ({ id: 'er1-id', name: 'er1' }), dial, log });
  cleanups.push(() => proxy.stop());
  return { proxy, port: proxy.addresses()[0]!.port };
}

async function client(port: number): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
  await once(socket, 'connect');
  cleanups.push(() => socket.destroy());
  return socket;
}

const precedenceUpdates = (asked: Array<{ contentType: number; body: unknown }>) => asked.filter((a) => a.contentType === ControlType.UpdateTerminator).map((a) => a.body);

describe('router tunnel: proxy mode into host mode', () => {
  it('carries bytes both ways between a proxy client and a TCP target, and half-closes from the client', async () => {
    const echo = await echoTarget();
    cleanups.push(() => echo.close());
    const { egress } = egressFor(target({ protocol: 'tcp', address: '127.0.0.1', port: echo.port }));
    const { port } = await proxyTo(dialThrough(egress, 't1', false));

    const socket = await client(port);
    const answer = readAll(socket);
    socket.write('hello ');
    socket.end('overlay');

    assert.equal((await answer).toString(), 'hello overlay');
  });

  it('half-closes from the target: the client reads EOF and can still send what the target then reads', async () => {
    let received: Promise<Buffer> | undefined;
    const server = await tcpTarget((socket) => {
      received = readAll(socket);
      socket.end('banner then EOF');
    });
    cleanups.push(() => server.close());
    const { egress } = egressFor(target({ protocol: 'tcp', address: '127.0.0.1', port: server.port }));
    const { port } = await proxyTo(dialThrough(egress, 't1', false));

    const socket = await client(port);
    assert.equal((await readAll(socket)).toString(), 'banner then EOF');
    socket.end('written after the target closed its side');

    while (!received) await turn();
    assert.equal((await received).toString(), 'written after the target closed its side');
  });

  it('encrypts end to end when the service requires it, and a large transfer arrives whole past a slow reader', async () => {
    await sodiumReady;
    const echo = await echoTarget();
    cleanups.push(() => echo.close());
    const { egress } = egressFor(target({ protocol: 'tcp', address: '127.0.0.1', port: echo.port }, true));
    const { port } = await proxyTo(dialThrough(egress, 't1', true));
    const data = randomBytes(8 * 1024 * 1024);

    const socket = await client(port);
    socket.pause();
    socket.end(data);
    // The client reads nothing until its writes are out: the echo's answer waits in the router's bounded buffers.
    await new Promise<void>((resolve) => (socket.writableFinished ? resolve() : socket.once('finish', () => resolve())));
    socket.resume();
    const back = await readAll(socket);

    assert.equal(back.length, data.length);
    assert.equal(createHash('sha256').update(back).digest('hex'), createHash('sha256').update(data).digest('hex'));
  });

  it('closes the accepted socket when the dial is refused and logs one line naming the service and the reason', async () => {
    const { log, lines } = recordingLog();
    const refuse: ProxyDial = async () => {
      throw Object.assign(new Error("service 'web' is not dialable by identity er1"), { kind: 'refused' });
    };
    const { port } = await proxyTo(refuse, log);

    const socket = await client(port);
    const read = await readAll(socket);

    assert.equal(read.length, 0, 'the socket is closed without a byte');
    assert.deepEqual(lines.filter((l) => l.msg.includes('refused')).map((l) => l.msg), ["proxy connection to service 'web' refused: service 'web' is not dialable by identity er1"]);
  });

  it('closes a proxy connection that arrives before any controller has answered, and dials nothing', async () => {
    const { log, lines } = recordingLog();
    let dials = 0;
    const never: ProxyDial = async () => {
      dials++;
      throw new Error('unreachable');
    };
    const proxy = await startProxyListeners({ host: '127.0.0.1', services: [{ name: 'web', port: 0 }], identity: () => undefined, dial: never, log });
    cleanups.push(() => proxy.stop());

    const socket = await client(proxy.addresses()[0]!.port);
    await readAll(socket);

    assert.equal(dials, 0);
    assert.ok(lines.some((l) => l.msg === "proxy connection to service 'web' closed: no controller has answered this router yet"));
  });

  it("closes both ends when an encrypted service answers without the hosting end's public key", async () => {
    const far = recordingEnd('far end');
    const noKey: ProxyDial = async (request) => {
      request.publicKeyFor(true);
      return { circuitId: 'c1', serviceId: 'svc1', peer: far.end, encryptionRequired: true };
    };
    const { port } = await proxyTo(noKey);

    const socket = await client(port);
    await readAll(socket);

    assert.equal(await far.ended(), "service 'web': the hosting end sent no public key for an encrypted service");
  });

  it("tells the host which port and protocol the proxy client reached, as upstream's proxy does in AppData", async () => {
    const echo = await echoTarget();
    cleanups.push(() => echo.close());
    let appData: Record<string, string> | undefined;
    const { egress } = egressFor(target({ protocol: 'tcp', address: '127.0.0.1', port: echo.port }));
    const through = dialThrough(egress, 't1', false);
    const { port } = await proxyTo(async (request, end) => {
      appData = JSON.parse(request.dialer.appData!.toString());
      return through(request, end);
    });

    const socket = await client(port);
    const back = readAll(socket);
    socket.end('x');
    await back;

    assert.deepEqual({ dst_protocol: appData?.dst_protocol, dst_ip: appData?.dst_ip, dst_port: appData?.dst_port }, { dst_protocol: 'tcp', dst_ip: '127.0.0.1', dst_port: String(port) });
  });

  it('refuses to start when a proxy port is taken, naming the service and the address', async () => {
    const taken = await tcpTarget(() => undefined);
    cleanups.push(() => taken.close());

    await assert.rejects(
      startProxyListeners({ host: '127.0.0.1', services: [{ name: 'web', port: taken.port }], identity: () => undefined, dial: dialThrough(egressFor(target({ protocol: 'tcp', address: 'x', port: 1 })).egress, 't1', false), log: silent }),
      (error: Error) => error instanceof RouterSetupError && error.message === `the tunnel's proxy listener for service 'web' cannot listen on 127.0.0.1:${taken.port}: EADDRINUSE`,
    );
  });
});

/** An SDK-like dialer (its own kx keys, the SDK's e2ee client session) dialled through the egress to an echo target. */
async function sdkDialToEcho() {
  await sodiumReady;
  const echo = await echoTarget();
  cleanups.push(() => echo.close());
  const { egress } = egressFor(target({ protocol: 'tcp', address: '127.0.0.1', port: echo.port }, true));
  const sdk = newKeyPair();
  const dialer = recordingEnd('sdk dialer');
  const accepted = await egress.dial({ circuitId: 'c1', terminatorId: 't1', serviceId: 'svc1', dialer: { identityId: 'i1', identityName: 'alice', publicKey: Buffer.from(sdk.publicKey) } }, dialer.end);
  return { dialer, accepted, session: e2eeSession('client', sdk, accepted.publicKey!) };
}

describe('router tunnel: host-mode egress', () => {
  it('is the end-to-end encryption peer of an SDK dialer: server keys, its header first, sealed bytes both ways', async () => {
    const { dialer, accepted, session } = await sdkDialToEcho();
    assert.equal(accepted.publicKey?.length, 32);
    accepted.end.send({ body: session.header, flags: 0, extra: [] });
    accepted.end.send({ body: session.seal(Buffer.from('ping through the router')), flags: 0, extra: [] });
    await dialer.until((p) => p.length >= 2);

    assert.equal(dialer.payloads[0]!.body.length, 24, "the router's first payload is its secretstream header");
    assert.equal(session.open(dialer.payloads[0]!.body), undefined);
    assert.equal(session.open(dialer.payloads[1]!.body)?.toString(), 'ping through the router');
    accepted.end.end('test done');
  });

  it('ends the circuit with a reason when a payload does not decrypt', async () => {
    const { dialer, accepted, session } = await sdkDialToEcho();

    accepted.end.send({ body: session.header, flags: 0, extra: [] });
    accepted.end.send({ body: Buffer.from('plain text where a sealed message belongs'), flags: 0, extra: [] });

    assert.match(await dialer.ended(), /end-to-end decryption failed: a 41-byte message from the peer does not authenticate/);
  });

  it('refuses a dial without a public key to a service that requires encryption, and connects nothing', async () => {
    let connections = 0;
    const server = await tcpTarget(() => void connections++);
    cleanups.push(() => server.close());
    const { egress } = egressFor(target({ protocol: 'tcp', address: '127.0.0.1', port: server.port }, true));

    await assert.rejects(
      egress.dial({ circuitId: 'c1', terminatorId: 't1', serviceId: 'svc1', dialer: { identityId: 'i1', identityName: 'alice' } }, recordingEnd().end),
      (error: Error) => error instanceof EgressError && error.kind === 'denied' && error.message === "service 'web' requires end-to-end encryption, and the dialer sent no public key",
    );
    assert.equal(connections, 0);
  });

  it('refuses a forwarded destination the config does not allow, without connecting or marking the terminator', async () => {
    const { egress, control } = egressFor(target({ protocol: 'tcp', forwardAddress: true, allowedAddresses: ['10.0.0.0/8'], port: 80 }));
    const appData = Buffer.from(JSON.stringify({ dst_protocol: 'tcp', dst_ip: '127.0.0.1', dst_port: '80' }));

    await assert.rejects(
      egress.dial({ circuitId: 'c1', terminatorId: 't1', serviceId: 'svc1', dialer: { identityId: 'i1', identityName: 'alice', appData } }, recordingEnd().end),
      (error: Error) => error instanceof EgressError && error.kind === 'denied' && error.message === "service 'web': the dialer asked for address '127.0.0.1', which allowedAddresses of its host config does not allow",
    );
    assert.deepEqual(control.asked, []);
  });

  it('dials the forwarded address and port the dialer sent when the config allows them', async () => {
    const echo = await echoTarget();
    cleanups.push(() => echo.close());
    const { egress } = egressFor(target({ protocol: 'tcp', forwardAddress: true, allowedAddresses: ['127.0.0.0/8'], forwardPort: true, allowedPortRanges: [{ low: 1, high: 65535 }] }));
    const appData = Buffer.from(JSON.stringify({ dst_protocol: 'tcp', dst_ip: '127.0.0.1', dst_port: String(echo.port) }));
    const dialer = recordingEnd();

    const accepted = await egress.dial({ circuitId: 'c1', terminatorId: 't1', serviceId: 'svc1', dialer: { identityId: 'i1', identityName: 'alice', appData } }, dialer.end);
    accepted.end.send({ body: Buffer.from('forwarded'), flags: 0, extra: [] });
    await dialer.until((p) => Buffer.concat(p.map((x) => x.body)).toString() === 'forwarded');
    accepted.end.end('test done');
  });

  it('fails a dial to a refusing target with a sentence, marks the terminator failed, and restores its precedence once the target answers', async () => {
    const port = await closedPort();
    const { egress, control } = egressFor(target({ protocol: 'tcp', address: '127.0.0.1', port, listenOptions: { precedence: 'required' } }));

    await assert.rejects(
      egress.dial({ circuitId: 'c1', terminatorId: 't1', serviceId: 'svc1', dialer: { identityId: 'i1', identityName: 'alice' } }, recordingEnd().end),
      (error: Error) => error instanceof EgressError && error.kind === 'refused' && error.message === `service 'web': tcp:127.0.0.1:${port} refused the connection`,
    );
    await turn();
    assert.deepEqual(precedenceUpdates(control.asked), [{ id: 't1', precedence: 'failed' }]);
    assert.deepEqual([...egress.failed().keys()], ['t1']);

    await egress.recheck();
    assert.deepEqual(precedenceUpdates(control.asked), [{ id: 't1', precedence: 'failed' }], 'still refusing: nothing changes');

    const revived = await tcpTarget((socket) => socket.end(), port);
    cleanups.push(() => revived.close());
    await egress.recheck();
    await turn();
    assert.deepEqual(precedenceUpdates(control.asked), [{ id: 't1', precedence: 'failed' }, { id: 't1', precedence: 'required' }]);
    assert.equal(egress.failed().size, 0);
  });

  it('restores a failed terminator at the next successful connection', async () => {
    const port = await closedPort();
    const { egress, control } = egressFor(target({ protocol: 'tcp', address: '127.0.0.1', port }));
    const dial = () => egress.dial({ circuitId: 'c1', terminatorId: 't1', serviceId: 'svc1', dialer: { identityId: 'i1', identityName: 'alice' } }, recordingEnd().end);
    await assert.rejects(dial(), EgressError);
    await turn();

    const revived = await tcpTarget(() => undefined, port);
    cleanups.push(() => revived.close());
    const accepted = await dial();
    await turn();

    assert.deepEqual(precedenceUpdates(control.asked), [{ id: 't1', precedence: 'failed' }, { id: 't1', precedence: 'default' }]);
    accepted.end.end('test done');
  });

  it('refuses a dial past listenOptions.maxConnections and accepts again once a circuit ends', async () => {
    const server = await tcpTarget(() => undefined);
    cleanups.push(() => server.close());
    const { egress } = egressFor(target({ protocol: 'tcp', address: '127.0.0.1', port: server.port, listenOptions: { maxConnections: 1 } }));
    const dial = () => egress.dial({ circuitId: 'c1', terminatorId: 't1', serviceId: 'svc1', dialer: { identityId: 'i1', identityName: 'alice' } }, recordingEnd().end);

    const first = await dial();
    await assert.rejects(dial(), (error: Error) => error instanceof EgressError && error.kind === 'denied' && /maxConnections \(1\)/.test(error.message));
    first.end.end('done');
    const again = await dial();

    assert.equal(egress.open, 1);
    again.end.end('done');
  });

  it('carries UDP: each payload one datagram, each datagram one payload', async () => {
    const udp = await udpEchoTarget();
    cleanups.push(() => udp.close());
    const { egress } = egressFor(target({ protocol: 'udp', address: '127.0.0.1', port: udp.port }));
    const dialer = recordingEnd();

    const accepted = await egress.dial({ circuitId: 'c1', terminatorId: 't1', serviceId: 'svc1', dialer: { identityId: 'i1', identityName: 'alice' } }, dialer.end);
    await turn();
    accepted.end.send({ body: Buffer.from('one'), flags: 0, extra: [] });
    accepted.end.send({ body: Buffer.from('two two'), flags: 0, extra: [] });
    await dialer.until((p) => p.length >= 2);

    assert.deepEqual(dialer.payloads.map((p) => p.body.toString()).sort(), ['echo:one', 'echo:two two']);
    accepted.end.end('test done');
  });

  it('sends a FIN payload when the target closes its side and ends the circuit once both sides have', async () => {
    const server = await tcpTarget((socket) => {
      socket.resume();
      socket.end('bye');
    });
    cleanups.push(() => server.close());
    const { egress } = egressFor(target({ protocol: 'tcp', address: '127.0.0.1', port: server.port }));
    const dialer = recordingEnd();

    const accepted = await egress.dial({ circuitId: 'c1', terminatorId: 't1', serviceId: 'svc1', dialer: { identityId: 'i1', identityName: 'alice' } }, dialer.end);
    await dialer.until((p) => p.some((x) => x.flags & PayloadFlag.FIN));
    assert.deepEqual(dialer.payloads.map((p) => [p.body.toString(), p.flags]), [['bye', 0], ['', PayloadFlag.FIN]]);
    accepted.end.send({ body: Buffer.alloc(0), flags: PayloadFlag.FIN, extra: [] });

    assert.equal(await dialer.ended(), 'both sides closed the connection');
  });

  it('holds what a target that does not read cannot take, and says when it has drained', async () => {
    let target_: Socket | undefined;
    const server = await tcpTarget((socket) => {
      socket.pause();
      target_ = socket;
    });
    cleanups.push(() => server.close());
    const { egress } = egressFor(target({ protocol: 'tcp', address: '127.0.0.1', port: server.port }));
    const accepted = await egress.dial({ circuitId: 'c1', terminatorId: 't1', serviceId: 'svc1', dialer: { identityId: 'i1', identityName: 'alice' } }, recordingEnd().end);
    await turn();

    const chunk = Buffer.alloc(64 * 1024);
    for (let sent = 0; sent < 64 * 1024 * 1024 && accepted.end.queued <= HIGH_WATER_BYTES; sent += chunk.length) accepted.end.send({ body: chunk, flags: 0, extra: [] });
    assert.ok(accepted.end.queued > HIGH_WATER_BYTES, 'the target does not read, so the router holds bytes for it');
    let drained = false;
    const whenDrained = new Promise<void>((resolve) => accepted.end.onceDrained(() => ((drained = true), resolve())));
    await turn();
    assert.equal(drained, false);

    target_!.resume();
    await whenDrained;
    assert.ok(accepted.end.queued <= HIGH_WATER_BYTES);
    accepted.end.end('test done');
  });
});
