/**
 * What a DialRequest costs when the answer is a path over links (issue 43; decision 0070): a controller with 100
 * online routers and 1,000 links in its store, one router asking over real mutual TLS (a control-protocol peer) for
 * a service hosted only at the far side of the graph. Each answer runs the policy decision, reads the cached graph
 * (at most once a second), runs Dijkstra and records the circuit. Not part of `npm run bench`'s default suite:
 *
 *   npx tsx scripts/bench/dial-paths.ts [--requests 2000] [--in-flight 16]
 */
import { parseArgs } from 'node:util';
import { ControlType } from '../../src/control-protocol/catalogue.js';
import { DialAnswerSchema } from '../../src/control-protocol/bodies.js';
import { createLinkRepository } from '../../src/persistence/repositories/links.js';
import { buildRouterPresence } from '../../src/services/routers/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { startTestController } from '../../test/helpers/controller.js';
import { controlPeer, helloWithLinks } from '../../test/helpers/control-peer.js';
import { testDialect } from '../../test/helpers/database.js';
import { createIdentity } from '../../test/helpers/fixtures.js';
import { createdId, managementClient } from '../../test/helpers/management.js';
import { routerHello } from '../../test/helpers/router-hello.js';
import { enrolledRouter } from '../../test/helpers/routers.js';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '2000' }, 'in-flight': { type: 'string', default: '16' } } });
const requests = Number(values.requests);
const inFlight = Number(values['in-flight']);
const ROUTERS = 100;
const LINKS_EACH = 10;

const ctl = await startTestController({ extraPorts: 1, modify: (config, ports) => (config.ctrl = { listener: `tls:127.0.0.1:${ports[1]}` }) });
const admin = managementClient(ctl, await ctl.adminToken());
const { database } = ctl.running;
const asker = await enrolledRouter(admin, (token, body) => ctl.fetch(`/edge/client/v1/enroll?method=erott&token=${token}`, { method: 'POST', body }), 'bench-r0');
try {
  const peer = await controlPeer(ctl.ports[1] as number, asker, ctl.ca, helloWithLinks([]));
  // The other 99 routers are rows online at this controller (presence written as their Hello would).
  const controllerId = (await database.db.selectFrom('controllers').select('id').executeTakeFirstOrThrow()).id;
  const presence = buildRouterPresence(database, { clock: systemClock, controllerId });
  const ids = [asker.id];
  for (let i = 1; i < ROUTERS; i++) {
    const id = await createdId(admin, '/edge-routers', { name: `bench-r${i}`, cost: i % 7 });
    await presence.connected(id, routerHello(`r${i}.example`, [`tls:r${i}.example:3022`]));
    ids.push(id);
  }
  const links = createLinkRepository(database);
  for (let i = 0; i < ROUTERS; i++) {
    const dialed = Array.from({ length: LINKS_EACH }, (_, k) => ({ id: `bench-l${i}-${k}`, destRouterId: ids[(i + k + 1) % ROUTERS] as string, state: 'up' as const, latencyMs: ((i * 31 + k * 17) % 50) + 1, dialAddress: 'tls:x:1' }));
    await links.replaceOf(ids[i] as string, dialed, new Date());
  }
  const serviceId = await createdId(admin, '/services', { name: 'bench-svc', encryptionRequired: false });
  await admin.post('/terminators', { service: serviceId, router: ids[ROUTERS / 2], binding: 'tunnel', address: 'tcp:10.0.0.1:80' });
  const identity = await createIdentity(database, { name: 'bench-user' });
  await createdId(admin, '/service-policies', { name: 'bench-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${identity.id}`], serviceRoles: [`@${serviceId}`] });

  const dial = () => peer.request(ControlType.DialRequest, { identityId: identity.id, serviceId }, DialAnswerSchema);
  const first = await dial();
  const latencies: number[] = [];
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next++ < requests) {
      const t = process.hrtime.bigint();
      await dial();
      latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => (latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] as number).toFixed(2);
  console.log(`${testDialect}: ${ROUTERS} routers, ${ROUTERS * LINKS_EACH} links, path of ${first.path.length} routers; ${requests} DialRequests, ${inFlight} in flight: ${(requests / seconds).toFixed(0)}/s, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`);
  peer.close();
} finally {
  asker.remove();
  await ctl.close();
}
