/**
 * The controller's side of links, circuits and router-hosted services (issue 43; decision 0070): the Peers push,
 * LinkReport, DialRequest's path over links, CircuitsEnded and ReconcileCircuits, HostedServices, the router's own
 * identity, and `/links` and `/circuits`. Routers here are control-protocol peers only (helpers/control-peer.ts):
 * enrolled through the API, real mutual TLS, real store; no router process.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ControlType } from '../../src/control-protocol/catalogue.js';
import { DialAnswerSchema, HostedServicesAnswerSchema, PeersSchema, readBody, ReconcileAnswerSchema, RevocationsSchema, TerminatorAnswerSchema, type DialRequest, type LinkReport, type Peers } from '../../src/control-protocol/bodies.js';
import { ControlRefusal } from '../../src/control-protocol/results.js';
import { createControllerRepository } from '../../src/persistence/repositories/controllers.js';
import { buildHousekeeping, CIRCUIT_OFFLINE_GRACE_MS } from '../../src/services/housekeeping/index.js';
import { buildRouterPresence } from '../../src/services/routers/index.js';
import { manualClock, systemClock } from '../../src/shared/clock.js';
import { newEntityId } from '../../src/shared/random.js';
import { cliUser } from '../helpers/cli.js';
import { routerHello } from '../helpers/router-hello.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { controlPeer, helloWithLinks, type ControlPeer } from '../helpers/control-peer.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { enrolledRouter, eventually, type EnrolledRouter } from '../helpers/routers.js';

const CLIENT = '/edge/client/v1';
const HOST_V1 = 'NH5p4FpGR';

describe(`links, circuits and hosted services at the controller (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  const routers: EnrolledRouter[] = [];
  const peers: ControlPeer[] = [];

  const newRouter = async (name: string) => {
    const router = await enrolledRouter(admin, (token, body) => ctl.fetch(`${CLIENT}/enroll?method=erott&token=${token}`, { method: 'POST', body }), name);
    routers.push(router);
    return router;
  };
  const connect = async (router: EnrolledRouter, links: { advertise: string; groups?: string[] }[] = []) => {
    const peer = await controlPeer(ctl.ports[1] as number, router, ctl.ca, helloWithLinks(links));
    peers.push(peer);
    return peer;
  };
  const detail = async (path: string) => (await admin.get(path)).json().data;
  /** The latest Peers push `peer` received. */
  const lastPeers = (peer: ControlPeer): Peers | undefined => {
    const found = peer.pushed.filter((m) => m.contentType === ControlType.Peers).at(-1);
    return found && readBody(PeersSchema, found.body, 'Peers');
  };
  const peerIds = (peer: ControlPeer) => (lastPeers(peer)?.routers.map((r) => r.id) ?? []).sort();
  const refused = (code: string, pattern: RegExp) => (error: unknown) => error instanceof ControlRefusal && error.code === code && pattern.test(error.message);
  const report = (peer: ControlPeer, links: LinkReport['links']) => peer.notify(ControlType.LinkReport, { links });
  const linkIds = async () => ((await admin.get('/links?limit=500')).json().data as { id: string }[]).map((l) => l.id).sort();

  /** A service (encryption required unless said) with a Dial policy for a new identity `<name>-user`; answers both ids. */
  const dialable = async (name: string, encryptionRequired = true) => {
    const serviceId = await createdId(admin, '/services', { name, encryptionRequired });
    const identity = await createIdentity(ctl.running.database, { name: `${name}-user` });
    await createdId(admin, '/service-policies', { name: `${name}-dial`, type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${identity.id}`], serviceRoles: [`@${serviceId}`] });
    return { serviceId, identityId: identity.id };
  };
  /** A dialable service with a tunnel terminator on each of `hosts`; `open` dials it from a router, answering the circuit id. */
  const servedBy = async (name: string, hosts: ControlPeer[]) => {
    const { serviceId, identityId } = await dialable(name, false);
    for (const [i, host] of hosts.entries()) await host.request(ControlType.CreateTerminator, { serviceId, binding: 'tunnel', address: `tcp:10.0.0.${i + 1}:80` }, TerminatorAnswerSchema);
    const open = async (peer: ControlPeer) => (await peer.request(ControlType.DialRequest, { identityId, serviceId }, DialAnswerSchema)).circuitId;
    const circuitIds = async () => ((await admin.get(`/circuits?filter=${encodeURIComponent(`serviceId = "${serviceId}"`)}`)).json().data as { id: string }[]).map((c) => c.id).sort();
    return { serviceId, open, circuitIds };
  };

  before(async () => {
    ctl = await startTestController({ extraPorts: 1, modify: (config, ports) => (config.ctrl = { listener: `tls:127.0.0.1:${ports[1]}` }) });
    admin = managementClient(ctl, await ctl.adminToken());
  });
  after(async () => {
    for (const peer of peers) peer.close();
    for (const router of routers) router.remove();
    await ctl.close();
  });

  describe('Peers', () => {
    it('pushes every router the other online routers with their fingerprint and link listeners, again when one leaves', async () => {
      const a = await newRouter('peers-a');
      const b = await newRouter('peers-b');
      const pa = await connect(a, [{ advertise: 'tls:peers-a.example:4022', groups: ['east', 'default'] }]);
      const pb = await connect(b);
      assert.ok(await eventually(() => peerIds(pa).includes(b.id) && peerIds(pb).includes(a.id)), 'each is told of the other');
      const aSeenByB = lastPeers(pb)?.routers.find((r) => r.id === a.id);
      assert.deepEqual(aSeenByB, { id: a.id, name: 'peers-a', fingerprint: a.fingerprint, links: [{ advertise: 'tls:peers-a.example:4022', groups: ['east', 'default'] }] });
      assert.deepEqual(lastPeers(pa)?.routers.find((r) => r.id === b.id)?.links, [], 'a dial-only router has no listeners');
      assert.ok(!peerIds(pa).includes(a.id), 'never itself');
      // Link listeners are not where SDKs connect: only the edge listener becomes supportedProtocols.
      assert.deepEqual((await detail(`/edge-routers/${a.id}`)).supportedProtocols, { tls: 'tls://edge.example:3022' });
      const pushesBefore = pa.pushed.filter((m) => m.contentType === ControlType.Peers).length;
      pb.close();
      assert.ok(await eventually(() => !peerIds(pa).includes(b.id)), 'b is gone from the next push');
      assert.equal(pa.pushed.filter((m) => m.contentType === ControlType.Peers).length, pushesBefore + 1, 'one push for one change');
    });

    it('tells its routers of a router connected at another controller of the store, seen by the poll', async () => {
      const a = await newRouter('peers-here');
      const elsewhere = await newRouter('peers-elsewhere');
      const pa = await connect(a);
      const now = new Date();
      const other = await createControllerRepository(ctl.running.database).upsert({
        id: newEntityId(), name: `controller-other-${newEntityId()}`, certPem: 'not used', ctrlAddress: null, fingerprint: 'not used', apiAddresses: {}, isOnline: true, lastJoinedAt: now, createdAt: now, updatedAt: now,
      });
      const atOther = buildRouterPresence(ctl.running.database, { clock: systemClock, controllerId: other });
      await atOther.connected(elsewhere.id, routerHello('elsewhere.example', ['tls:elsewhere.example:3022'], { listeners: [{ binding: 'link', advertise: 'tls:elsewhere.example:4022', groups: ['default'] }] }));
      assert.ok(await eventually(() => peerIds(pa).includes(elsewhere.id)), 'seen within the poll');
      assert.deepEqual(lastPeers(pa)?.routers.find((r) => r.id === elsewhere.id)?.links, [{ advertise: 'tls:elsewhere.example:4022', groups: ['default'] }]);
      await atOther.disconnected(elsewhere.id);
      assert.ok(await eventually(() => !peerIds(pa).includes(elsewhere.id)), 'gone within the poll');
    });

    it('stops listing a router an administrator disables', async () => {
      const a = await newRouter('peers-dis-a');
      const b = await newRouter('peers-dis-b');
      const pa = await connect(a);
      await connect(b);
      assert.ok(await eventually(() => peerIds(pa).includes(b.id)));
      assert.equal((await admin.patch(`/edge-routers/${b.id}`, { disabled: true })).status, 200);
      assert.ok(await eventually(() => !peerIds(pa).includes(b.id)), 'disabled: no longer a peer');
    });
  });

  describe('LinkReport and /links', () => {
    it('stores the links a router dialed whole, shows them with router names, and forgets them when its channel closes', async () => {
      const a = await newRouter('links-a');
      const b = await newRouter('links-b');
      const pa = await connect(a);
      await connect(b);
      report(pa, [{ id: 'link-ab-1', peerRouterId: b.id, state: 'up', latencyMs: 2.5, dialAddress: 'tls:links-b.example:4022' }, { id: 'link-ab-2', peerRouterId: b.id, state: 'stalled', latencyMs: null, dialAddress: 'tls:links-b.example:4022' }]);
      assert.ok(await eventually(async () => (await linkIds()).includes('link-ab-2')));
      const one = await detail('/links/link-ab-1');
      assert.equal(one.sourceRouter.id, a.id);
      assert.equal(one.sourceRouter.name, 'links-a');
      assert.equal(one.destRouter.name, 'links-b');
      assert.equal(one.state, 'up');
      assert.equal(one.down, false);
      assert.equal(one.latencyMs, 2.5);
      assert.equal(one.sourceLatency, 2_500_000);
      assert.equal(one.protocol, 'tls');
      assert.equal(one.dialAddress, 'tls:links-b.example:4022');
      const filtered = (await admin.get(`/links?filter=${encodeURIComponent('state = "stalled"')}`)).json();
      assert.deepEqual(filtered.data.map((l: { id: string }) => l.id), ['link-ab-2']);
      // A report is whole: a link left out is gone.
      report(pa, [{ id: 'link-ab-1', peerRouterId: b.id, state: 'up', latencyMs: 3, dialAddress: 'tls:links-b.example:4022' }]);
      assert.ok(await eventually(async () => !(await linkIds()).includes('link-ab-2')));
      const missing = await admin.get('/links/link-ab-2');
      assert.equal(missing.status, 404);
      assert.match(missing.json().error.message, /No link has the id 'link-ab-2'/);
      pa.close();
      assert.ok(await eventually(async () => !(await linkIds()).includes('link-ab-1')), "a's links go with its channel");
    });

    it('refuses a malformed LinkReport by field and keeps what was stored', async () => {
      const a = await newRouter('links-bad-a');
      const b = await newRouter('links-bad-b');
      const pa = await connect(a);
      report(pa, [{ id: 'link-bad-1', peerRouterId: b.id, state: 'up', latencyMs: 1, dialAddress: 'tls:x:1' }]);
      assert.ok(await eventually(async () => (await linkIds()).includes('link-bad-1')));
      const answer = await pa.channel.request({ contentType: ControlType.LinkReport, body: Buffer.from(JSON.stringify({ links: [{ id: 'x', peerRouterId: b.id, state: 'sideways', latencyMs: 1, dialAddress: 'tls:x:1' }] })) }, 5_000);
      assert.match(answer.body.toString('utf8'), /body\.links\.0\.state/);
      assert.ok((await linkIds()).includes('link-bad-1'), 'the earlier report stands');
      assert.equal((await admin.del(`/edge-routers/${b.id}`)).status, 200);
      assert.ok(await eventually(async () => !(await linkIds()).includes('link-bad-1')), 'a link goes with the router it reaches');
    });
  });

  describe('DialRequest over links', () => {
    const dial = (peer: ControlPeer, body: DialRequest) => peer.request(ControlType.DialRequest, body, DialAnswerSchema);
    const terminator = (peer: ControlPeer, serviceId: string, cost = 0) => peer.request(ControlType.CreateTerminator, { serviceId, binding: 'tunnel', address: 'tcp:10.0.0.1:80', cost }, TerminatorAnswerSchema);

    it('answers the path of routers and links to a terminator on another router, and records the circuit', async () => {
      const [a, b] = [await newRouter('dial-a'), await newRouter('dial-b')];
      const [pa, pb] = [await connect(a), await connect(b)];
      const { serviceId, identityId } = await dialable('dial-path');
      const t = await terminator(pb, serviceId);
      await assert.rejects(dial(pa, { identityId, serviceId }), refused('NOT_FOUND', /hosted only on routers this router has no usable path to/));
      report(pa, [{ id: 'dial-link-ab', peerRouterId: b.id, state: 'up', latencyMs: 1, dialAddress: 'tls:dial-b.example:4022' }]);
      assert.ok(await eventually(async () => (await linkIds()).includes('dial-link-ab')));
      const answer = await dial(pa, { identityId, serviceName: 'dial-path' });
      assert.deepEqual({ ...answer, circuitId: '' }, {
        circuitId: '',
        serviceId,
        serviceName: 'dial-path',
        encryptionRequired: true,
        terminator: { id: t.id, routerId: b.id, binding: 'tunnel', address: 'tcp:10.0.0.1:80', instanceId: '' },
        path: [a.id, b.id],
        links: ['dial-link-ab'],
      });
      const circuit = await detail(`/circuits/${answer.circuitId}`);
      assert.equal(circuit.service.name, 'dial-path');
      assert.equal(circuit.terminator.id, t.id);
      assert.equal(circuit.clientId, identityId);
      assert.deepEqual(circuit.path.nodes.map((n: { name: string }) => n.name), ['dial-a', 'dial-b']);
      assert.deepEqual(circuit.path.links.map((l: { id: string }) => l.id), ['dial-link-ab']);
      // The link works both ways: b reaches a terminator on a over the link a dialed.
      const onA = await terminator(pa, serviceId, 500);
      assert.deepEqual((await dial(pb, { identityId, serviceId, exclude: [t.id] })).path, [b.id, a.id]);
      assert.equal((await dial(pb, { identityId, serviceId })).terminator.id, t.id, 'smartrouting: its own terminator, cheaper than the path and cost to a');
      assert.equal((await dial(pa, { identityId, serviceId })).terminator.id, t.id, 'cost 500 on a loses to 1 ms and cost 0 on b');
      await assert.rejects(dial(pa, { identityId, serviceId, exclude: [t.id, onA.id] }), refused('NOT_FOUND', /has no terminator besides those excluded/));
      await assert.rejects(dial(pa, { identityId, serviceId, instanceId: 'nobody' }), refused('NOT_FOUND', /has no terminator of instance 'nobody'/));
      // A stalled link is not used.
      report(pa, [{ id: 'dial-link-ab', peerRouterId: b.id, state: 'stalled', latencyMs: 1, dialAddress: 'tls:dial-b.example:4022' }]);
      assert.ok(await eventually(async () => (await detail('/links/dial-link-ab')).state === 'stalled'));
      assert.equal((await dial(pa, { identityId, serviceId })).terminator.id, onA.id, 'only its own terminator is reachable now');
    });

    it('names why there is no terminator: none at all, only on offline routers, and refuses a request naming the service twice or not at all', async () => {
      const [a, b] = [await newRouter('dial-why-a'), await newRouter('dial-why-b')];
      const pa = await connect(a);
      const pb = await connect(b);
      const { serviceId, identityId } = await dialable('dial-why');
      await assert.rejects(dial(pa, { identityId, serviceId }), refused('NOT_FOUND', /has no terminator: nothing hosts it/));
      await terminator(pb, serviceId);
      pb.close();
      assert.ok(await eventually(async () => (await detail(`/edge-routers/${b.id}`)).isOnline === false));
      await assert.rejects(dial(pa, { identityId, serviceId }), refused('NOT_FOUND', /terminators only on routers that are offline/));
      await assert.rejects(dial(pa, { identityId, serviceId, serviceName: 'dial-why' }), refused('BAD_MESSAGE', /exactly one of serviceId and serviceName/));
      await assert.rejects(dial(pa, { identityId }), refused('BAD_MESSAGE', /exactly one of serviceId and serviceName/));
      await assert.rejects(dial(pa, { identityId, serviceName: 'no-such-service' }), refused('NOT_FOUND', /No service has the name 'no-such-service'/));
    });

    it('never routes through a noTraversal router, and takes the cheaper of two paths', async () => {
      const [a, b, c, d] = [await newRouter('nt-a'), await newRouter('nt-b'), await newRouter('nt-c'), await newRouter('nt-d')];
      const [pa, pb, pc, pd] = [await connect(a), await connect(b), await connect(c), await connect(d)];
      const { serviceId, identityId } = await dialable('dial-nt');
      await terminator(pc, serviceId);
      // a-b-c (2 + 2 ms) and a-d-c (5 + 5 ms).
      report(pa, [{ id: 'nt-ab', peerRouterId: b.id, state: 'up', latencyMs: 2, dialAddress: 'tls:b:1' }, { id: 'nt-ad', peerRouterId: d.id, state: 'up', latencyMs: 5, dialAddress: 'tls:d:1' }]);
      report(pb, [{ id: 'nt-bc', peerRouterId: c.id, state: 'up', latencyMs: 2, dialAddress: 'tls:c:1' }]);
      report(pd, [{ id: 'nt-dc', peerRouterId: c.id, state: 'up', latencyMs: 5, dialAddress: 'tls:c:1' }]);
      assert.ok(await eventually(async () => {
        const stored = await linkIds();
        return ['nt-ab', 'nt-ad', 'nt-bc', 'nt-dc'].every((id) => stored.includes(id));
      }));
      assert.deepEqual((await dial(pa, { identityId, serviceId })).path, [a.id, b.id, c.id]);
      assert.equal((await admin.patch(`/edge-routers/${b.id}`, { noTraversal: true })).status, 200);
      assert.ok(await eventually(async () => (await dial(pa, { identityId, serviceId })).path[1] === d.id), 'around b now');
      assert.equal((await admin.patch(`/edge-routers/${d.id}`, { noTraversal: true })).status, 200);
      assert.ok(await eventually(() => dial(pa, { identityId, serviceId }).then(() => false, refused('NOT_FOUND', /no usable path/))), 'no path left');
    });
  });

  describe('CircuitsEnded and ReconcileCircuits', () => {
    it("forgets the sender's circuits named as ended, ignores another router's, and keeps only those reconciled", async () => {
      const [a, b] = [await newRouter('circ-a'), await newRouter('circ-b')];
      const [pa, pb] = [await connect(a), await connect(b)];
      const { open, circuitIds } = await servedBy('circ', [pa, pb]);
      const [a1, a2, a3, b1] = [await open(pa), await open(pa), await open(pa), await open(pb)];
      assert.deepEqual(await circuitIds(), [a1, a2, a3, b1].sort());
      pa.notify(ControlType.CircuitsEnded, { circuits: [{ id: a1, reason: 'closed by the dialer' }, { id: b1, reason: 'not mine' }] });
      assert.ok(await eventually(async () => !(await circuitIds()).includes(a1)));
      assert.ok((await circuitIds()).includes(b1), "b's circuit stays: a cannot end it");
      assert.deepEqual(await pa.request(ControlType.ReconcileCircuits, { keep: [a2, b1] }, ReconcileAnswerSchema), { removed: 1 });
      assert.deepEqual(await circuitIds(), [a2, b1].sort());
      await assert.rejects(pa.request(ControlType.ReconcileCircuits, { keep: 'all' }, ReconcileAnswerSchema), refused('BAD_MESSAGE', /body\.keep/));
      assert.equal((await admin.get('/circuits/no-such-circuit')).status, 404);
      assert.match((await admin.get('/circuits/no-such-circuit')).json().error.message, /No circuit has the id 'no-such-circuit'/);
    });

    it('sweeps the circuits of a router offline for over a minute, and keeps those of a router online', async () => {
      const [a, b] = [await newRouter('sweep-a'), await newRouter('sweep-b')];
      const [pa, pb] = [await connect(a), await connect(b)];
      const { open, circuitIds } = await servedBy('sweep', [pa, pb]);
      const [ofA, ofB] = [await open(pa), await open(pb)];
      pb.close();
      assert.ok(await eventually(async () => (await detail(`/edge-routers/${b.id}`)).isOnline === false));
      const sweepAt = (ms: number) => buildHousekeeping(ctl.running.database, { clock: manualClock(new Date(Date.now() + ms)), accessTokenLifetimeMs: 60_000, sessionTimeoutMs: 60_000 }).sweep();
      await sweepAt(30_000);
      assert.deepEqual(await circuitIds(), [ofA, ofB].sort(), 'offline for half a minute: kept');
      const swept = await sweepAt(CIRCUIT_OFFLINE_GRACE_MS + 5_000);
      assert.ok(swept.circuits >= 1);
      assert.deepEqual(await circuitIds(), [ofA], "b's circuit went; a is online, its circuit stays");
    });
  });

  describe("the router's own identity and HostedServices", () => {
    it('gives a tunneler-enabled router an identity and a system policy that follow its name and flag', async () => {
      const router = await newRouter('tun-id');
      assert.equal((await admin.get(`/identities/${router.id}`)).status, 404, 'no identity while not tunneler-enabled');
      assert.equal((await admin.patch(`/edge-routers/${router.id}`, { isTunnelerEnabled: true })).status, 200);
      const identity = await detail(`/identities/${router.id}`);
      assert.equal(identity.name, 'tun-id');
      assert.equal(identity.typeId ?? identity.type?.id, 'Router');
      const policies = (await admin.get(`/edge-router-policies?filter=${encodeURIComponent(`name = "edge-router-${router.id}-system"`)}`)).json().data;
      assert.equal(policies.length, 1);
      assert.equal(policies[0].isSystem, true);
      assert.deepEqual(policies[0].identityRoles, [`@${router.id}`]);
      assert.deepEqual(policies[0].edgeRouterRoles, [`@${router.id}`]);
      assert.equal((await admin.patch(`/edge-routers/${router.id}`, { name: 'tun-id-renamed' })).status, 200);
      assert.equal((await detail(`/identities/${router.id}`)).name, 'tun-id-renamed');
      const deleted = await admin.del(`/identities/${router.id}`);
      assert.equal(deleted.status, 400);
      assert.match(deleted.json().error.message, /is the identity of edge router 'tun-id-renamed'/);
      const enroll = await admin.post('/enrollments', { identityId: router.id, method: 'ott', expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
      assert.equal(enroll.status, 400);
      assert.match(enroll.json().error.message, /identityId is the identity of edge router/);
      const renamed = await admin.patch(`/identities/${router.id}`, { name: 'other-name' });
      assert.equal(renamed.status, 400);
      assert.equal((await admin.patch(`/edge-routers/${router.id}`, { isTunnelerEnabled: false })).status, 200);
      assert.equal((await admin.get(`/identities/${router.id}`)).status, 404, 'flag off: identity gone');
      assert.equal((await admin.get(`/edge-router-policies?filter=${encodeURIComponent(`name = "edge-router-${router.id}-system"`)}`)).json().data.length, 0);
      assert.equal((await admin.patch(`/edge-routers/${router.id}`, { isTunnelerEnabled: true })).status, 200);
      assert.equal((await admin.del(`/edge-routers/${router.id}`)).status, 200);
      assert.equal((await admin.get(`/identities/${router.id}`)).status, 404, 'router deleted: identity gone');
      // Positive control: an ordinary identity is deleted as always.
      const plain = await createIdentity(ctl.running.database, { name: 'tun-plain' });
      assert.equal((await admin.del(`/identities/${plain.id}`)).status, 200);
    });

    it('refuses a tunneler-enabled router a name another identity holds', async () => {
      await createIdentity(ctl.running.database, { name: 'taken-name' });
      const res = await admin.post('/edge-routers', { name: 'taken-name', isTunnelerEnabled: true });
      assert.equal(res.status, 400);
      assert.match(res.json().error.message, /name 'taken-name' is held by identity/);
    });

    it('pages the services the router identity may Bind with their host config, and refuses a router that is not tunneler-enabled', async () => {
      const router = await newRouter('hosting');
      const peer = await connect(router);
      await assert.rejects(peer.request(ControlType.HostedServices, {}, HostedServicesAnswerSchema), refused('NOT_ALLOWED', /router hosting is not tunneler-enabled/));
      assert.equal((await admin.patch(`/edge-routers/${router.id}`, { isTunnelerEnabled: true })).status, 200);
      const config = await createdId(admin, '/configs', { name: 'hosting-host', configTypeId: HOST_V1, data: { protocol: 'tcp', address: 'localhost', port: 8080 } });
      const hosted = await createdId(admin, '/services', { name: 'hosting-svc', encryptionRequired: true, configs: [config], roleAttributes: ['hosted'] });
      await createdId(admin, '/services', { name: 'hosting-noconfig', encryptionRequired: false, roleAttributes: ['hosted'] });
      const bindId = await createdId(admin, '/service-policies', { name: 'hosting-bind', type: 'Bind', semantic: 'AnyOf', identityRoles: [`@${router.id}`], serviceRoles: ['#hosted'] });
      const answer = await peer.request(ControlType.HostedServices, {}, HostedServicesAnswerSchema);
      assert.deepEqual(answer, {
        identityId: router.id,
        services: [{ id: hosted, name: 'hosting-svc', encryptionRequired: true, configType: 'host.v1', config: { protocol: 'tcp', address: 'localhost', port: 8080 } }],
      });
      assert.deepEqual((await peer.request(ControlType.HostedServices, { after: hosted }, HostedServicesAnswerSchema)).services.filter((s) => s.id === hosted), [], 'after: later ids only');
      await assert.rejects(peer.request(ControlType.HostedServices, { after: 'x"y' }, HostedServicesAnswerSchema), refused('BAD_MESSAGE', /body\.after/));
      // A tunnel terminator hosted as the router's identity is checked for Bind like an SDK's.
      const t = await peer.request(ControlType.CreateTerminator, { serviceId: hosted, binding: 'tunnel', address: 'tcp:localhost:8080', hostId: router.id }, TerminatorAnswerSchema);
      assert.equal(t.binding, 'tunnel');
      assert.equal((await admin.del(`/service-policies/${bindId}`)).status, 200);
      assert.ok(await eventually(async () => (await admin.get(`/terminators/${t.id}`)).status === 404), 'Bind lost: the terminator goes');
      const revoked = () =>
        peer.pushed.filter((m) => m.contentType === ControlType.Revocations).flatMap((m) => readBody(RevocationsSchema, m.body, 'Revocations').items);
      assert.ok(await eventually(() => revoked().some((item) => item.kind === 'terminator' && item.id === t.id)), 'the router is told to end it');
      await assert.rejects(peer.request(ControlType.CreateTerminator, { serviceId: hosted, binding: 'tunnel', address: 'tcp:localhost:8080', hostId: router.id }, TerminatorAnswerSchema), refused('NOT_ALLOWED', /may not bind/));
      assert.deepEqual((await peer.request(ControlType.HostedServices, {}, HostedServicesAnswerSchema)).services, []);
    });
  });

  it('shows /links and /circuits to administrators only', async () => {
    const user = await createIdentity(ctl.running.database, { name: 'fabric-user', username: 'fabric-user', password: 'fabric-user-password' });
    assert.ok(user.id);
    const login = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: 'fabric-user', password: 'fabric-user-password' } });
    const token = login.headers['svc-session'] as string;
    for (const path of ['/links', '/circuits']) {
      assert.equal((await ctl.fetch(`/edge/management/v1${path}`, { headers: { 'svc-session': token } })).status, 403, `${path}: not an admin`);
      assert.equal((await admin.get(path)).status, 200, `${path}: admin`);
    }
    const bad = await admin.get(`/circuits?filter=${encodeURIComponent('nosuchfield = 1')}`);
    assert.equal(bad.status, 400);
  });

  it('lists links and circuits with svc edge list, as a table', async () => {
    const [a, b] = [await newRouter('cli-a'), await newRouter('cli-b')];
    const [pa, pb] = [await connect(a), await connect(b)];
    report(pa, [{ id: 'cli-link', peerRouterId: b.id, state: 'up', latencyMs: 4, dialAddress: 'tls:cli-b.example:4022' }]);
    assert.ok(await eventually(async () => (await linkIds()).includes('cli-link')));
    const circuitId = await (await servedBy('cli-svc', [pb])).open(pa);

    const xdg = mkdtempSync(join(tmpdir(), 'svc-cli-fabric-'));
    try {
      const { ok } = cliUser(() => xdg);
      await ok('edge', 'login', ctl.baseUrl, '--yes', '-u', 'admin', '-p', 'admin-password');
      const links = (await ok('edge', 'list', 'links', 'id = "cli-link"')).split('\n');
      assert.match(links[0] as string, /^id +/);
      assert.match(links[0] as string, /state/);
      assert.match(links[1] as string, /^cli-link +.*up/);
      assert.equal(links[2], 'results: 1-1 of 1');
      const circuits = (await ok('edge', 'list', 'circuits', `id = "${circuitId}"`)).split('\n');
      assert.match(circuits[0] as string, /^id +/);
      assert.match(circuits[1] as string, new RegExp(`^${circuitId} `));
      assert.equal(circuits[2], 'results: 1-1 of 1');
    } finally {
      rmSync(xdg, { recursive: true, force: true });
    }
  });
});
