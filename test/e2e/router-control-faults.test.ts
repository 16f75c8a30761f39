/**
 * Bad peers on the controller's control listener (issue 41, "Faults and bad input"): frames that are malformed,
 * oversized or out of order, Hellos that lie, and certificates that are foreign, expired, unknown or missing. Each is
 * refused and logged, the controller stays up and keeps serving a good router, and nothing it holds grows.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect, type TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { createFrameDecoder, encodeMessage, type Message } from '../../src/channel/index.js';
import { CONTROL_PROTOCOL_VERSION, ControlHeader, ControlType } from '../../src/control-protocol/catalogue.js';
import { writeBody } from '../../src/control-protocol/bodies.js';
import { createControllerPki, generateKeyPair, issueCertificate, loadCertificateAuthority, privateKeyToPem } from '../../src/pki/index.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { managementClient, type ManagementClient } from '../helpers/management.js';
import { enrolledRouter, eventually, runRouterInProcess, type EnrolledRouter } from '../helpers/routers.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CLIENT = '/edge/client/v1';
const HELLO = {
  protocol: 1,
  versionInfo: { version: '1.0.0', revision: 'r', buildDate: 'd', os: 'linux', arch: 'x64' },
  hostname: 'peer',
  listeners: [],
  capabilities: [],
};

function u32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value);
  return b;
}

/** A raw TLS peer that writes bytes and reads frames, as a misbehaving router would. */
async function rawPeer(port: number, tls: { key?: string; cert?: string; ca: string }): Promise<{ socket: TLSSocket; next(timeoutMs?: number): Promise<Message | 'closed'>; raw(): Promise<Buffer> }> {
  const socket = connect({ host: '127.0.0.1', port, ...tls, servername: 'localhost' });
  await once(socket, 'secureConnect');
  const decoder = createFrameDecoder({ maxHeaderBytes: 65_536, maxBodyBytes: 4 * 1_048_576 });
  const queue: Message[] = [];
  const bytes: Buffer[] = [];
  let closed = false;
  socket.on('data', (chunk: Buffer) => {
    bytes.push(chunk);
    try {
      queue.push(...decoder.push(chunk));
    } catch {
      // raw() reads what is not a frame
    }
  });
  socket.on('close', () => (closed = true));
  socket.on('error', () => (closed = true));
  return {
    socket,
    async next(timeoutMs = 5_000) {
      const ok = await eventually(() => queue.length > 0 || closed, timeoutMs);
      if (queue.length > 0) return queue.shift()!;
      if (!ok) throw new Error('no frame and no close');
      return 'closed';
    },
    async raw() {
      await eventually(() => closed, 5_000);
      return Buffer.concat(bytes);
    },
  };
}

const helloFrame = (overrides: { version?: number; body?: Buffer } = {}) =>
  encodeMessage({
    contentType: 0,
    sequence: 1,
    headers: new Map([[ControlHeader.ProtocolVersion, u32(overrides.version ?? CONTROL_PROTOCOL_VERSION)]]),
    body: overrides.body ?? writeBody(HELLO),
  });

describe(`bad peers on the control listener (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let port: number;
  let router: EnrolledRouter;
  const logLines: string[] = [];
  let foreignDir: string;

  before(async () => {
    ctl = await startTestController({ extraPorts: 1, logLines, modify: (config, ports) => (config.ctrl = { listener: `tls:127.0.0.1:${ports[1]}` }) });
    port = ctl.ports[1]!;
    admin = managementClient(ctl, await ctl.adminToken());
    router = await enrolledRouter(admin, (token, body) => ctl.fetch(`${CLIENT}/enroll?method=erott&token=${token}`, { method: 'POST', body }), 'er-faults', { endpoints: [`tls:127.0.0.1:${port}`] });
    foreignDir = mkdtempSync(join(tmpdir(), 'svc-foreign-'));
  });
  after(async () => {
    router.remove();
    rmSync(foreignDir, { recursive: true, force: true });
    await ctl.close();
  });

  const asRouter = () => rawPeer(port, { key: router.keyPem, cert: router.certPem, ca: ctl.ca });
  const logged = (text: string) => eventually(() => logLines.some((line) => line.includes(text)), 3_000);

  it('answers bad magic with the unknown-version reply and closes', async () => {
    const peer = await asRouter();
    peer.socket.write(Buffer.from('GET / HTTP/1.1\r\nhost: x\r\n\r\n'));
    const bytes = await peer.raw();
    assert.deepEqual([...bytes.subarray(0, 16)], [3, 6, 9, 10, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]);
  });

  it('closes on a Hello announcing more headers or body than a Hello may carry', async () => {
    const peer = await asRouter();
    const header = Buffer.alloc(20);
    Buffer.from([3, 6, 9, 12]).copy(header);
    header.writeInt32LE(0, 4);
    header.writeInt32LE(1, 8);
    header.writeInt32LE(0, 12);
    header.writeInt32LE(2 ** 31 - 1, 16);
    peer.socket.write(header);
    assert.equal(await peer.next(), 'closed');
  });

  it('refuses a Hello of another protocol version, or with a body naming a router id, with a code and a sentence', async () => {
    let peer = await asRouter();
    peer.socket.write(helloFrame({ version: 99 }));
    let answer = await peer.next();
    assert.notEqual(answer, 'closed');
    assert.equal((answer as Message).headers.get(ControlHeader.ErrorCode)?.toString(), 'UNSUPPORTED_PROTOCOL_VERSION');
    assert.match((answer as Message).body.toString(), /speaks svc control protocol 1; the Hello announced 99/);

    peer = await asRouter();
    peer.socket.write(helloFrame({ body: writeBody({ ...HELLO, routerId: 'someone-else' }) }));
    answer = await peer.next();
    assert.equal((answer as Message).headers.get(ControlHeader.ErrorCode)?.toString(), 'BAD_MESSAGE');
    assert.match((answer as Message).body.toString(), /routerId/);
    assert.ok(await logged('a router connection was refused'));
  });

  it('refuses out-of-order messages on an open channel by name, and keeps the channel', async () => {
    const peer = await asRouter();
    peer.socket.write(helloFrame());
    const accepted = (await peer.next()) as Message;
    assert.equal(accepted.headers.get(2)?.[0], 1, 'Hello accepted');
    const send = (contentType: number, sequence: number, body: unknown) => peer.socket.write(encodeMessage({ contentType, sequence, headers: new Map(), body: writeBody(body) }));
    const answerTo = async (sequence: number) => {
      for (;;) {
        const message = await peer.next();
        if (message === 'closed') throw new Error('closed');
        if (message.headers.get(1)?.readInt32LE(0) === sequence) return message;
      }
    };
    send(0, 10, HELLO);
    assert.match((await answerTo(10)).body.toString(), /Hello was already exchanged/);
    send(ControlType.TrustState, 11, { jwks: { keys: [] }, cas: [], issuers: [] });
    assert.match((await answerTo(11)).body.toString(), /TrustState is sent by the controller, not by a router/);
    send(31_999, 12, {});
    assert.match((await answerTo(12)).body.toString(), /content type 31999 is not part of the svc control protocol/);
    peer.socket.write(encodeMessage({ contentType: ControlType.CreateTerminator, sequence: 13, headers: new Map(), body: Buffer.from('{"serviceId":') }));
    assert.match((await answerTo(13)).body.toString(), /CreateTerminator: the body is not valid JSON/);
    send(ControlType.Ping, 14, {});
    assert.equal((await answerTo(14)).headers.get(2)?.[0], 1, 'the channel still answers');
    peer.socket.destroy();
  });

  it('refuses in the TLS handshake a client with no certificate, a foreign one, or an expired one', async () => {
    await assert.rejects(asPeerWithout(), 'no client certificate');
    const foreign = await createControllerPki(foreignDir, { hosts: ['127.0.0.1'], commonName: 'foreign' });
    const foreignKey = readFileSync(foreign.clientKey, 'utf8');
    const foreignCert = readFileSync(foreign.clientCert, 'utf8');
    await assert.rejects(handshakeAndHello({ key: foreignKey, cert: foreignCert }), 'a certificate of another CA');

    const issuer = await loadCertificateAuthority({ cert: ctl.pki.intermediateCert, key: ctl.pki.intermediateKey });
    const keys = await generateKeyPair();
    // Issued an hour ago (a clock started from now, moved back) for one minute: expired by now.
    const anHourAgo = { now: () => new Date(Date.now() - 3_600_000) };
    const expired = await issueCertificate({ profile: 'client', publicKey: keys.publicKey, subject: { commonName: router.id }, validityMs: 60_000, issuer, clock: anHourAgo });
    await assert.rejects(handshakeAndHello({ key: await privateKeyToPem(keys.privateKey), cert: expired.toString('pem') }), 'an expired certificate');
    assert.ok(await logged('refused in the TLS handshake'));
  });

  it('refuses a certificate of its own CA that names no router', async () => {
    const issuer = await loadCertificateAuthority({ cert: ctl.pki.intermediateCert, key: ctl.pki.intermediateKey });
    const keys = await generateKeyPair();
    const cert = await issueCertificate({ profile: 'client', publicKey: keys.publicKey, subject: { commonName: router.id }, validityMs: 3_600_000, issuer });
    const peer = await rawPeer(port, { key: await privateKeyToPem(keys.privateKey), cert: cert.toString('pem'), ca: ctl.ca });
    peer.socket.write(helloFrame());
    const answer = (await peer.next()) as Message;
    assert.equal(answer.headers.get(ControlHeader.ErrorCode)?.toString(), 'UNKNOWN_ROUTER');
    assert.match(answer.body.toString(), new RegExp(new X509Certificate(cert.toString('pem')).fingerprint.replaceAll(':', '').toLowerCase()));
  });

  it('still serves a good router after all of that', async () => {
    const { running } = await runRouterInProcess(router);
    try {
      assert.ok(await eventually(() => running.control.connected));
      assert.equal((await admin.get(`/edge-routers/${router.id}`)).json().data.isOnline, true);
    } finally {
      await running.stop();
    }
  });

  async function asPeerWithout() {
    const peer = await rawPeer(port, { ca: ctl.ca });
    peer.socket.write(helloFrame());
    const answer = await peer.next(3_000);
    if (answer === 'closed') throw new Error('closed');
    return answer;
  }

  async function handshakeAndHello(tls: { key: string; cert: string }) {
    const peer = await rawPeer(port, { ...tls, ca: ctl.ca });
    peer.socket.write(helloFrame());
    const answer = await peer.next(3_000);
    if (answer === 'closed') throw new Error('closed');
    return answer;
  }
});
