/**
 * The router's SDK edge listener (issue 42), driven frame by frame as the public C SDK drives it
 * (reference/edge-router-protocol-facts.md): a real controller, a router enrolled and run in this process, and raw
 * channels over real TLS with the `ziti-edge` ALPN. What the router accepts (Hello with an OIDC or a legacy API
 * session, Latency, Bind, Connect, Data, half-close, close), what it refuses and how (the answers the SDK acts on),
 * and when it ends a channel (session revoked, identity disabled). The TypeScript SDK over the same router is in
 * sdk-*.test.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect as netConnect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { encode, read } from '../../src/channel/message.js';
import { EdgeFlag, EdgeHeader, EdgeType, INVALID_SESSION } from '../../src/channel/edge-protocol.js';
import type { RunningRouter } from '../../src/router/run.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import {
  acceptDial,
  bind,
  certIdentity,
  connIdOf,
  dial,
  edgeSocket,
  legacyToken,
  oidcTokens,
  openEdge,
  sendData,
  sessionToken,
  type CertIdentity,
  type EdgeTestChannel,
} from '../helpers/edge-client.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { enrolledRouter, eventually, runRouterInProcess, type EnrolledRouter } from '../helpers/routers.js';
import { verifiedCa } from '../helpers/cas.js';
import { addCertAuthenticator, createIdentity } from '../helpers/fixtures.js';
import { makeOpensslPki } from '../helpers/openssl-pki.js';
import { opensslFingerprint } from '../helpers/openssl.js';

const CLIENT = '/edge/client/v1';
const text = (b: Buffer) => b.toString('utf8');

describe(`the router's SDK edge listener (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let router: EnrolledRouter;
  let er: RunningRouter;
  let routerLines: string[] = [];
  let host: CertIdentity;
  let dialer: CertIdentity;
  let serviceId: string;
  const channels: EdgeTestChannel[] = [];

  const open = async (who: CertIdentity, token: string) => {
    const edge = await openEdge({ port: router.edgePort, servername: `${router.name}.routers.test`, ca: ctl.ca, who, token });
    channels.push(edge);
    return edge;
  };

  /** Real time, or earlier by `clockBehind` ms while a test signs a token that is to expire soon. */
  let clockBehind = 0;
  before(async () => {
    ctl = await startTestController({ clock: { now: () => new Date(Date.now() - clockBehind) }, extraPorts: 1, modify: (config, ports) => (config.ctrl = { listener: `tls:127.0.0.1:${ports[1]}` }) });
    admin = managementClient(ctl, await ctl.adminToken());
    router = await enrolledRouter(admin, (token, body) => ctl.fetch(`${CLIENT}/enroll?method=erott&token=${token}`, { method: 'POST', body }), 'er-edge', {
      endpoints: [`tls:127.0.0.1:${ctl.ports[1]}`],
      edgeOptions: { handshakeTimeout: '1s' },
    });
    ({ running: er, lines: routerLines } = await runRouterInProcess(router));
    assert.ok(await eventually(() => er.control.connected && er.trust.current !== undefined), 'router connected with its trust state');
    host = await certIdentity(ctl, 'edge-host');
    dialer = await certIdentity(ctl, 'edge-dialer');
    serviceId = await createdId(admin, '/services', { name: 'echo', encryptionRequired: false });
    await createdId(admin, '/service-policies', { name: 'echo-bind', type: 'Bind', semantic: 'AnyOf', identityRoles: [`@${host.id}`], serviceRoles: [`@${serviceId}`] });
    await createdId(admin, '/service-policies', { name: 'echo-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${dialer.id}`], serviceRoles: [`@${serviceId}`] });
    await createdId(admin, '/edge-router-policies', { name: 'all-routers', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#all'] });
    await createdId(admin, '/service-edge-router-policies', { name: 'all-services', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#all'] });
  });
  after(async () => {
    for (const edge of channels) edge.channel.close();
    await er?.stop();
    router?.remove();
    await ctl?.close();
  });

  /** The channel closes, and the router's log says why (an SDK hears only that the connection closed). */
  const closedBecause = async (edge: EdgeTestChannel, why: RegExp) => {
    await edge.closed;
    const said = await eventually(() => routerLines.some((line) => line.includes('SDK channel closed') && why.test(line)));
    assert.ok(said, `the router logs the channel closed because ${why}: ${routerLines.filter((l) => l.includes('SDK channel closed')).slice(-3).join('\n')}`);
  };

  /** A host bound to the service and a dialer connected through it; returns both ends' connection ids. */
  async function circuit(extraConnect: Array<[number, Buffer]> = [], extraAccept: Array<[number, Buffer]> = []) {
    // One host at a time: the channels of earlier tests go, and their terminators with them.
    for (const edge of channels.splice(0)) edge.channel.close();
    assert.ok(await eventually(async () => (await admin.get(`/services/${serviceId}/terminators`)).json().data.length === 0), 'earlier terminators removed');
    const hostApi = (await oidcTokens(ctl, host)).accessToken;
    const dialApi = (await oidcTokens(ctl, dialer)).accessToken;
    const hostEdge = await open(host, hostApi);
    const bound = await bind(hostEdge, 7, await sessionToken(ctl, hostApi, serviceId, 'Bind'));
    assert.equal(bound.contentType, EdgeType.StateConnected, text(bound.body));
    assert.ok(await eventually(async () => (await admin.get(`/services/${serviceId}/terminators`)).json().data.length > 0), 'terminator created');
    const dialEdge = await open(dialer, dialApi);
    const accepting = acceptDial(hostEdge, extraAccept);
    const answer = await dial(dialEdge, 0, await sessionToken(ctl, dialApi, serviceId, 'Dial'), extraConnect);
    const { dial: dialMessage, connId: hostConnId } = await accepting;
    return { hostEdge, dialEdge, answer, dialMessage, hostConnId, hostApi, dialApi };
  }

  it('accepts a Hello with an OIDC access token bound to the client certificate, and answers latency probes', async () => {
    const edge = await open(dialer, (await oidcTokens(ctl, dialer)).accessToken);
    assert.equal(read.bool(edge.hello, 2), true);
    assert.match(read.string(edge.hello, 4) ?? '', /^svc-router /);
    const stamp = encode.u64(Date.now());
    const probe = await edge.channel.request({ contentType: 3, headers: [[128, stamp]] }, 5_000);
    assert.equal(probe.contentType, 2);
    assert.deepEqual(probe.headers.get(128), stamp, 'the timestamp is echoed');
  });

  it('relays a circuit between a binding and a dialing SDK: keys, caller and data one for one, half-close and close with a reason', async () => {
    const publicKey = randomBytes(32);
    const hostKey = randomBytes(32);
    const { hostEdge, dialEdge, answer, dialMessage, hostConnId } = await circuit(
      [[EdgeHeader.PublicKey, publicKey], [EdgeHeader.CallerId, encode.string('edge-dialer')], [EdgeHeader.AppData, Buffer.from('{"k":1}')]],
      [[EdgeHeader.PublicKey, hostKey]],
    );
    assert.equal(answer.contentType, EdgeType.StateConnected, text(answer.body));
    assert.equal(connIdOf(answer), 0, 'the first connection id of an SDK is 0');
    assert.deepEqual(answer.headers.get(EdgeHeader.PublicKey), hostKey, "the host's key reaches the dialer");
    assert.ok(read.string(answer, EdgeHeader.CircuitId));
    assert.equal(connIdOf(dialMessage), 7, 'the Dial names the binding');
    assert.deepEqual(dialMessage.headers.get(EdgeHeader.PublicKey), publicKey, "the dialer's key reaches the host");
    assert.equal(read.string(dialMessage, EdgeHeader.CallerId), 'edge-dialer');
    assert.equal(text(dialMessage.headers.get(EdgeHeader.AppData)!), '{"k":1}');
    assert.ok(hostConnId > 2 ** 31, 'router-provided connection ids start above 2^31');

    // Data both ways, one message for one, Flags and UUID unchanged.
    const uuid = randomBytes(16);
    dialEdge.channel.send({ contentType: EdgeType.Data, headers: [[EdgeHeader.ConnId, encode.u32(0)], [EdgeHeader.Flags, encode.u32(EdgeFlag.TRACE_UUID | EdgeFlag.STREAM)], [128, uuid]], body: 'hello' });
    const atHost = await hostEdge.next((m) => m.contentType === EdgeType.Data);
    assert.equal(connIdOf(atHost), hostConnId);
    assert.equal(text(atHost.body), 'hello');
    assert.equal(read.u32(atHost, EdgeHeader.Flags), EdgeFlag.TRACE_UUID | EdgeFlag.STREAM);
    assert.deepEqual(atHost.headers.get(128), uuid);
    const big = randomBytes(3 * 1_048_576);
    sendData(hostEdge, hostConnId, big);
    const atDialer = await dialEdge.next((m) => m.contentType === EdgeType.Data);
    assert.equal(connIdOf(atDialer), 0);
    assert.ok(atDialer.body.equals(big), 'a 3 MiB message arrives whole, as one message');

    // Half-close travels as an empty Data with FIN; the other direction keeps working.
    sendData(dialEdge, 0, '', EdgeFlag.FIN);
    const fin = await hostEdge.next((m) => m.contentType === EdgeType.Data);
    assert.equal(read.u32(fin, EdgeHeader.Flags), EdgeFlag.FIN);
    assert.equal(fin.body.length, 0);
    sendData(hostEdge, hostConnId, 'after fin');
    assert.equal(text((await dialEdge.next((m) => m.contentType === EdgeType.Data)).body), 'after fin');

    // Close: the other side hears it with the reason; the closing side hears nothing back.
    hostEdge.channel.send({ contentType: EdgeType.StateClosed, headers: [[EdgeHeader.ConnId, encode.u32(hostConnId)]], body: 'host done' });
    const closed = await dialEdge.next((m) => m.contentType === EdgeType.StateClosed);
    assert.equal(connIdOf(closed), 0);
    assert.equal(text(closed.body), 'host done');
    sendData(dialEdge, 0, 'too late');
    const unknown = await dialEdge.next((m) => m.contentType === EdgeType.StateClosed);
    assert.equal(connIdOf(unknown), 0, 'data for a closed connection is answered with StateClosed');
  });

  it('removes the terminator when the binding channel drops, and a dial then fails with a reason', async () => {
    const { hostEdge, dialEdge, dialApi } = await circuit();
    const before = (await admin.get(`/services/${serviceId}/terminators`)).json().data.length;
    assert.ok(before >= 1);
    hostEdge.channel.close();
    assert.ok(await eventually(async () => (await admin.get(`/services/${serviceId}/terminators`)).json().data.length === before - 1), 'the terminator goes with its channel');
    const answer = await dial(dialEdge, 1, await sessionToken(ctl, dialApi, serviceId, 'Dial'));
    assert.equal(answer.contentType, EdgeType.StateClosed);
    assert.match(text(answer.body), /no terminator/i);
  });

  it('answers Invalid Session for a dial with a Bind token, another API session token, or garbage, and refuses a reused connection id', async () => {
    const { dialEdge, hostApi, dialApi } = await circuit();
    const refusals = [
      ['a Bind token', await sessionToken(ctl, hostApi, serviceId, 'Bind')],
      ['another API session', await sessionToken(ctl, (await oidcTokens(ctl, dialer)).accessToken, serviceId, 'Dial')],
      ['garbage', 'not-a-token'],
    ] as const;
    let connId = 100;
    for (const [what, token] of refusals) {
      const answer = await dial(dialEdge, connId++, token);
      assert.equal(answer.contentType, EdgeType.StateClosed, what);
      assert.equal(text(answer.body), INVALID_SESSION, what);
    }
    const reused = await dial(dialEdge, 0, await sessionToken(ctl, dialApi, serviceId, 'Dial'));
    assert.equal(reused.contentType, EdgeType.StateClosed);
    assert.match(text(reused.body), /connection id 0 is already in use/);
    assert.equal(dialEdge.channel.closed, false, 'the channel stays up after refusals');
  });

  it('refuses a Hello whose token belongs to another certificate, is expired or malformed, with the reason', async () => {
    const hostToken = (await oidcTokens(ctl, host)).accessToken;
    for (const [what, token, pattern] of [
      ["another identity's token", hostToken, /certificate does not belong/],
      ['a malformed token', 'ey.not.valid', /not valid/],
      ['no token', '', /no API session token/],
    ] as const) {
      await assert.rejects(open(dialer, token), (error: Error) => pattern.test(error.message), what);
    }
  });

  const edgeAt = (who: Pick<CertIdentity, 'certPem' | 'keyPem'>, alpn?: string[]) =>
    edgeSocket({ port: router.edgePort, servername: `${router.name}.routers.test`, ca: ctl.ca, who, ...(alpn ? { alpn } : {}) });
  /** Everything the router sends until it closes the connection (or `ms` pass). */
  const untilClosed = (socket: import('node:tls').TLSSocket, send: Buffer | string, ms = 5_000) =>
    new Promise<{ data: Buffer; closed: boolean }>((resolve) => {
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => resolve({ data: Buffer.concat(chunks), closed: false }), ms);
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', () => undefined);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve({ data: Buffer.concat(chunks), closed: true });
      });
      socket.write(send);
    });

  it('refuses a client without a certificate at the TLS handshake', async () => {
    const attempt = await edgeAt({ certPem: '', keyPem: '' }).then(
      async (socket) => untilClosed(socket, 'x'),
      () => ({ data: Buffer.alloc(0), closed: true }),
    );
    assert.equal(attempt.closed, true, 'the connection is closed');
    assert.equal(attempt.data.length, 0, 'nothing of the protocol is answered');
  });

  it('refuses a client whose certificate is not from a trusted CA', async () => {
    const stranger = makeOpensslPki('Stranger').client('stranger');
    const attempt = await edgeAt(stranger).then(
      async (socket) => untilClosed(socket, 'x'),
      () => ({ data: Buffer.alloc(0), closed: true }),
    );
    assert.equal(attempt.closed, true);
  });

  it('answers a first frame with bad magic with the version reply, and closes', async () => {
    const socket = await edgeAt(dialer);
    assert.equal(socket.alpnProtocol, 'ziti-edge', 'the ALPN the SDKs offer is selected');
    const answer = await untilClosed(socket, 'GET / HTTP/1.1\r\n\r\n');
    assert.equal(answer.data.toString('hex'), '0306090a020000000100000002000000');
    assert.equal(answer.closed, true);
  });

  it('closes a client that never finishes its TLS handshake, after the handshake timeout of the listener options', async () => {
    const plain = netConnect(router.edgePort, '127.0.0.1');
    plain.on('error', () => undefined);
    const closed = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 5_000);
      plain.once('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
      plain.write('\x03\x06\x09\x0c');
    });
    assert.equal(closed, true);
  });

  it('accepts a legacy svc-session API session, and closes its channel when an administrator deletes the session', async () => {
    const legacy = await legacyToken(ctl, dialer);
    const edge = await open(dialer, legacy.token);
    assert.equal(read.bool(edge.hello, 2), true);
    assert.equal((await admin.del(`/api-sessions/${legacy.id}`)).status, 200);
    await closedBecause(edge, /API session ended/);
  });

  it('accepts a burst of 100 legacy Hellos at once, each checked at the controller', async () => {
    const legacy = await legacyToken(ctl, dialer);
    const burst = await Promise.allSettled(Array.from({ length: 100 }, () => open(dialer, legacy.token)));
    const refused = burst.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason));
    assert.deepEqual(refused, [], 'none refused');
    for (const r of burst) if (r.status === 'fulfilled') r.value.channel.close();
    // The positive control for the checks: a token nobody issued is still refused in a burst.
    await assert.rejects(open(dialer, 'not-a-session-token'), /not valid/);
  });

  it('reports a legacy session with an open channel as active, which keeps it alive', async () => {
    const legacy = await legacyToken(ctl, dialer);
    const activity = async () => Date.parse((await admin.get(`/api-sessions/${legacy.id}`)).json().data.lastActivityAt);
    const before = await activity();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await open(dialer, legacy.token);
    assert.ok(await eventually(async () => (await activity()) > before), 'lastActivityAt moved on when the channel opened');
  });

  it('closes a channel when its access token expires', async () => {
    // Tokens last 30 minutes; this one is signed by a controller clock 30 minutes less 2 seconds behind.
    clockBehind = 30 * 60_000 - 2_000;
    let token: string;
    try {
      token = (await oidcTokens(ctl, dialer)).accessToken;
    } finally {
      clockBehind = 0;
    }
    const edge = await open(dialer, token);
    await closedBecause(edge, /token expired/);
  });

  it('closes a channel whose certificate stops chaining to a trusted CA when that CA is deleted', async () => {
    const acme = makeOpensslPki('Acme Edge');
    try {
      const caId = await verifiedCa(ctl, acme, 'acme-edge');
      const leaf = acme.client('acme-laptop');
      const { id } = await createIdentity(ctl.running.database, { name: 'acme-laptop' });
      await addCertAuthenticator(ctl.running.database, id, leaf.certPem);
      const who = { certPem: leaf.certPem + acme.intermediate.certPem, keyPem: leaf.keyPem };
      const laptop = { ...dialer, ...who, id, name: 'acme-laptop', leafPem: leaf.certPem, fingerprint: opensslFingerprint(leaf.certPem) };
      const token = (await oidcTokens(ctl, who)).accessToken;
      const first = await open(laptop, token);
      assert.equal(read.bool(first.hello, 2), true, 'a verified third-party CA is trusted');
      // The router's own reaction: a trust state without Acme's root (as the controller pushes one) closes the channel.
      const current = er.trust.current!;
      const acmeBody = acme.root.certPem.trim().split('\n').slice(1, -1).join('');
      er.trust.replace({ ...current, cas: current.cas.filter((pem) => !pem.replace(/\s/g, '').includes(acmeBody)) }, Date.now());
      await closedBecause(first, /no longer trusted/);
      er.trust.replace(current, Date.now());
      // End to end: deleting the CA at the controller.
      const edge = await open(laptop, token);
      assert.equal((await admin.del(`/cas/${caId}`)).status, 200);
      // The controller ends the sessions that logged in through the CA, and the router stops trusting the chain:
      // whichever reaches the router first closes the channel.
      await closedBecause(edge, /no longer trusted|API session ended/);
    } finally {
      acme.dispose();
    }
  });

  it('closes a channel mid-stream when its identity is disabled', async () => {
    const { dialEdge, hostEdge, hostConnId } = await circuit();
    sendData(hostEdge, hostConnId, 'before');
    await dialEdge.next((m) => m.contentType === EdgeType.Data);
    assert.equal((await admin.post(`/identities/${dialer.id}/disable`, { durationMinutes: 0 })).status, 200);
    await closedBecause(dialEdge, /disabled or deleted|API session ended/);
    const closed = await hostEdge.next((m) => m.contentType === EdgeType.StateClosed && connIdOf(m) === hostConnId);
    assert.match(text(closed.body), /channel closed/);
    assert.equal((await admin.post(`/identities/${dialer.id}/enable`, {})).status, 200);
  });
});
