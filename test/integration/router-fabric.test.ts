/**
 * The router's links and circuits in one process (issue 43): two link managers with real certificates from an
 * openssl PKI and real TLS on loopback, each with its fabric. The controller's side is the seam the fabric talks to
 * (a Peers list, a DialRequest answer naming the path, the notices it sends recorded); the far end is an echo end.
 * Links form only for peers the controller named and groups they share; a circuit carries payloads, flags and its
 * close both ways over the link; a lost link ends its circuits with the reason; the ended circuits are reported.
 * @store-independent
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import type { Peers } from '../../src/control-protocol/bodies.js';
import { ControlType } from '../../src/control-protocol/catalogue.js';
import { EgressError, type CircuitEnd, type Payload } from '../../src/router/fabric/circuit-end.js';
import { createFabric, DialError, type Fabric } from '../../src/router/fabric/fabric.js';
import { startLinks, type LinkManager } from '../../src/router/links/link-manager.js';
import { makeOpensslPki, type OpensslPki } from '../helpers/openssl-pki.js';
import { freePort } from '../helpers/ports.js';
import { eventually } from '../helpers/routers.js';

const SERVER_EXTENSIONS = ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=serverAuth', 'subjectAltName=IP:127.0.0.1'];
const silent = pino({ level: 'silent' });

/** An end that records what reaches it and how it ended. */
function recorder(label: string): CircuitEnd & { got: Payload[]; endedWith: string | undefined } {
  return {
    label,
    got: [],
    endedWith: undefined,
    send(payload) {
      this.got.push(payload);
    },
    end(reason) {
      this.endedWith = reason;
    },
    queued: 0,
    onceDrained: (listener) => queueMicrotask(listener),
    pause: () => undefined,
    resume: () => undefined,
  };
}

interface TestRouter {
  id: string;
  fingerprint: string;
  notices: Array<{ type: number; body: any }>;
  links: LinkManager;
  fabric: Fabric;
  /** What the next DialRequest answers: a function of the routers' links. */
  answer?: () => unknown;
}

describe('router links and circuits (in process, real TLS)', () => {
  let pki: OpensslPki;
  const routers: TestRouter[] = [];
  let x: TestRouter;
  let y: TestRouter;
  const echoEnds: CircuitEnd[] = [];

  async function router(id: string, link: { listen?: string[]; dial?: string[] }): Promise<TestRouter> {
    const client = pki.client(id);
    const server = pki.issue(`${id}-server`, { extensions: SERVER_EXTENSIONS });
    const { createHash, X509Certificate } = await import('node:crypto');
    const fingerprint = createHash('sha1').update(new X509Certificate(client.certPem).raw).digest('hex');
    const port = await freePort();
    const me: Partial<TestRouter> & { notices: TestRouter['notices'] } = { id, fingerprint, notices: [] };
    const control = {
      connected: true,
      controller: { protocol: 1, routerId: id, routerName: id, controllerId: 'c', controllerName: 'c' },
      notify(type: number, body: unknown) {
        me.notices.push({ type, body });
        return true;
      },
      async request(type: number) {
        if (type !== ControlType.DialRequest) throw new Error(`unexpected request ${type}`);
        return me.answer!();
      },
    };
    me.fabric = createFabric({ control: control as never, links: { get: (linkId) => me.links?.get(linkId) }, log: silent, relayed: () => undefined });
    me.links = await startLinks({
      settings: {
        listeners: link.listen ? [{ host: '127.0.0.1', port, advertise: `tls:127.0.0.1:${port}`, groups: link.listen }] : [],
        dialers: link.dial ? [{ groups: link.dial, backoff: { minMs: 50, maxMs: 200, factor: 2 } }] : [],
        probeIntervalMs: 100,
      },
      tls: { key: client.keyPem, cert: client.certPem, serverCert: server.certPem, serverKey: server.keyPem, ca: `${pki.root.certPem}${pki.intermediate.certPem}` },
      control: control as never,
      fabric: me.fabric,
      log: silent,
    });
    const done = me as TestRouter;
    routers.push(done);
    return done;
  }

  const peersFor = (self: TestRouter, listed: TestRouter[], groups: Record<string, string[]> = {}): Peers => ({
    routers: listed
      .filter((r) => r !== self)
      .map((r) => ({
        id: r.id,
        name: r.id,
        fingerprint: r.fingerprint,
        links: r.links.ports.map((port) => ({ advertise: `tls:127.0.0.1:${port}`, groups: groups[r.id] ?? ['default'] })),
      })),
  });

  before(async () => {
    pki = makeOpensslPki('Routers');
    x = await router('rx', { dial: ['default'] });
    y = await router('ry', { listen: ['default'] });
    // The far end of every circuit at Y echoes what it gets, and ends when told.
    y.fabric.registerEgress('tunnel', {
      async dial(request, peer) {
        if (request.terminatorId === 'refusing') throw new EgressError('the target refused the connection', 'refused');
        const end: CircuitEnd = { ...recorder('echo'), send: (payload) => peer.send(payload), end: () => undefined };
        echoEnds.push(end);
        return { end, publicKey: Buffer.alloc(32, 7) };
      },
    });
    for (const r of [x, y]) r.links.peers(peersFor(r, [x, y]));
    assert.ok(await eventually(() => x.links.count === 1 && y.links.count === 1), 'X linked to Y');
  });
  after(async () => {
    for (const r of routers) {
      r.fabric.stop();
      await r.links.close();
    }
    pki.dispose();
  });

  const pathAnswer = (terminatorId = 't1') => () => {
    const link = x.links.all()[0]!;
    return {
      circuitId: `circuit-${Math.random().toString(36).slice(2)}`,
      serviceId: 's1',
      serviceName: 'web',
      encryptionRequired: false,
      terminator: { id: terminatorId, routerId: y.id, binding: 'tunnel', address: 'tcp:127.0.0.1:80', instanceId: '' },
      path: [x.id, y.id],
      links: [link.id],
    };
  };

  it('reports the link it dialed with its state and measured latency; the accepting side reports nothing', async () => {
    assert.ok(await eventually(() => x.notices.some((n) => n.type === ControlType.LinkReport && n.body.links[0]?.latencyMs !== null)), 'a report with latency');
    const report = x.notices.filter((n) => n.type === ControlType.LinkReport).at(-1)!.body.links;
    assert.equal(report.length, 1);
    assert.equal(report[0].peerRouterId, y.id);
    assert.equal(report[0].state, 'up');
    assert.ok(y.notices.filter((n) => n.type === ControlType.LinkReport).every((n) => n.body.links.length === 0));
  });

  it('carries payloads both ways over the link, flags and passed-through headers intact, and the far key back', async () => {
    x.answer = pathAnswer();
    const dialer = recorder('dialer');
    const result = await x.fabric.dial({ identityId: 'i1', identityName: 'alice', serviceName: 'web', dialer: {}, publicKeyFor: () => Buffer.alloc(32, 1) }, dialer);
    assert.deepEqual(result.publicKey, Buffer.alloc(32, 7));
    result.peer.send({ body: Buffer.from('one'), flags: 0, extra: [[128, Buffer.from('uuid-bytes')]] });
    result.peer.send({ body: Buffer.alloc(0), flags: 1, extra: [] });
    assert.ok(await eventually(() => dialer.got.length === 2));
    assert.equal(dialer.got[0]!.body.toString(), 'one');
    assert.deepEqual(dialer.got[0]!.extra, [[128, Buffer.from('uuid-bytes')]]);
    assert.equal(dialer.got[1]!.flags, 1, 'FIN passes');
    assert.equal(x.fabric.circuits, 1);
    result.peer.end('the dialer is done');
    assert.equal(x.fabric.circuits, 0);
    assert.ok(await eventually(() => x.notices.some((n) => n.type === ControlType.CircuitsEnded && n.body.circuits.some((c: any) => c.reason === 'the dialer is done'))), 'CircuitsEnded reported');
  });

  it('answers a dial the far end refuses with its sentence, and keeps nothing of the circuit', async () => {
    x.answer = pathAnswer('refusing');
    await assert.rejects(
      x.fabric.dial({ identityId: 'i1', identityName: 'alice', serviceName: 'web', dialer: {}, publicKeyFor: () => undefined }, recorder('dialer')),
      (error: unknown) => error instanceof DialError && /the target refused the connection/.test(error.message),
    );
    assert.equal(x.fabric.circuits, 0);
    assert.equal(x.links.all()[0]!.hops.size, 0);
  });

  it('refuses a link from a router the controller did not name, and one sharing no link group', async () => {
    const stranger = await router('rz', { dial: ['default'] });
    stranger.links.peers(peersFor(stranger, [y]));
    // Y does not know rz: the link is refused and rz retries with its backoff.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(stranger.links.count, 0);
    const other = await router('rw', { dial: ['elsewhere'] });
    other.links.peers(peersFor(other, [y], { ry: ['elsewhere'] }));
    y.links.peers(peersFor(y, [x, y, other]));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(other.links.count, 0, 'groups differ: Y listens in default only');
    assert.equal(y.links.count, 1);
  });

  it('ends every circuit crossing a link that closes, naming the link, and the dialer links again', async () => {
    x.answer = pathAnswer();
    const dialer = recorder('dialer');
    await x.fabric.dial({ identityId: 'i1', identityName: 'alice', serviceName: 'web', dialer: {}, publicKeyFor: () => undefined }, dialer);
    x.links.all()[0]!.socket.destroy();
    assert.ok(await eventually(() => dialer.endedWith !== undefined));
    assert.match(dialer.endedWith!, /the link to router ry closed/);
    assert.ok(await eventually(() => x.links.count === 1, 5_000), 'linked again');
  });
});
