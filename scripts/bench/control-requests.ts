/**
 * How many DialRequests and ApiSessionChecks one router's control channel gets answered per second (issue 42), with
 * their latency: a controller and a router in this process over real mutual TLS, a service with three SDK-bound
 * terminators, a legacy API session, then `--requests` requests of each kind with `--in-flight` outstanding (the
 * controller allows 64 per router). Not part of `npm run bench`'s default suite; run it on its own:
 *
 *   npx tsx scripts/bench/control-requests.ts [--requests 4000] [--in-flight 32]
 *   SVC_TEST_DB=postgres SVC_TEST_POSTGRES_URL=postgres://... npx tsx scripts/bench/control-requests.ts
 */
import { parseArgs } from 'node:util';
import { ControlType } from '../../src/control-protocol/catalogue.js';
import { ApiSessionCheckAnswerSchema, DialAnswerSchema, TerminatorAnswerSchema } from '../../src/control-protocol/bodies.js';
import { startTestController } from '../../test/helpers/controller.js';
import { testDialect } from '../../test/helpers/database.js';
import { createIdentity } from '../../test/helpers/fixtures.js';
import { createdId, managementClient } from '../../test/helpers/management.js';
import { enrolledRouter, eventually, runRouterInProcess } from '../../test/helpers/routers.js';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '4000' }, 'in-flight': { type: 'string', default: '32' } } });
const requests = Number(values.requests);
const inFlight = Number(values['in-flight']);

const ctl = await startTestController({ extraPorts: 1, modify: (config, ports) => (config.ctrl = { listener: `tls:127.0.0.1:${ports[1]}` }) });
const admin = managementClient(ctl, await ctl.adminToken());
const router = await enrolledRouter(admin, (token, body) => ctl.fetch(`/edge/client/v1/enroll?method=erott&token=${token}`, { method: 'POST', body }), 'er-bench', {
  endpoints: [`tls:127.0.0.1:${ctl.ports[1]}`],
});
const { running: er } = await runRouterInProcess(router);
try {
  if (!(await eventually(() => er.control.connected))) throw new Error('the router did not connect');
  const serviceId = await createdId(admin, '/services', { name: 'bench', roleAttributes: ['bench'] });
  const user = await createIdentity(ctl.running.database, { name: 'bench-user', password: 'bench-password' });
  await admin.patch(`/identities/${user.id}`, { roleAttributes: ['benchers'] });
  for (const type of ['Dial', 'Bind']) {
    await createdId(admin, '/service-policies', { name: `bench-${type}`, type, semantic: 'AnyOf', identityRoles: ['#benchers'], serviceRoles: ['#bench'] });
  }
  for (let i = 0; i < 3; i++) {
    await er.control.request(ControlType.CreateTerminator, { serviceId, binding: 'edge', address: `sdk:${i}`, hostId: user.id, cost: i }, TerminatorAnswerSchema, 5_000);
  }
  const login = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'bench-user', password: 'bench-password' } });
  const token = login.headers['svc-session'] as string;
  const dial = { identityId: user.id, serviceId, apiSessionId: login.json().data.id as string };
  const kinds = {
    DialRequest: () => er.control.request(ControlType.DialRequest, dial, DialAnswerSchema, 5_000),
    ApiSessionCheck: () => er.control.request(ControlType.ApiSessionCheck, { legacyToken: token, fingerprint: '0'.repeat(40) }, ApiSessionCheckAnswerSchema, 5_000),
  };
  for (const [name, send] of Object.entries(kinds)) {
    for (let i = 0; i < 200; i++) await send(); // warm-up
    const latencies: number[] = [];
    let next = 0;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next++ < requests) {
          const at = process.hrtime.bigint();
          await send();
          latencies.push(Number(process.hrtime.bigint() - at) / 1e6);
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    latencies.sort((a, b) => a - b);
    const at = (q: number) => (latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] as number).toFixed(2);
    console.log(`${name} (${testDialect}): ${(requests / seconds).toFixed(0)}/s, ${requests} requests, ${inFlight} in flight; p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`);
  }
} finally {
  await er.stop();
  router.remove();
  await ctl.close();
}
