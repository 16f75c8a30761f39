/**
 * Bytes per second through the client tunneler (`svc tunnel`, issue 43): one process runs a controller, a router, an
 * SDK context hosting a byte-counting sink and the tunneler; a local TCP client writes 256 MiB into the intercepted
 * port and half-closes, and the time until the sink's count comes back is measured, for a service in clear and one
 * with end-to-end encryption, each twice. Not part of `npm run bench`; run it on its own: `npx tsx scripts/bench/tunnel-relay.ts`. Everything shares
 * one event loop, so the figure is a floor for the tunneler alone.
 */
import { connect } from 'node:net';
import { once } from 'node:events';
import { createContext } from '../../src/sdk/index.js';
import { startTunneler } from '../../src/tunneler/tunneler.js';
import { managementClient, createdId } from '../../test/helpers/management.js';
import { freePort } from '../../test/helpers/ports.js';
import { eventually, runRouterInProcess } from '../../test/helpers/routers.js';
import { openRouterPolicies, sdkIdentity, sdkRouter, sdkService, sdkTestController } from '../../test/helpers/sdk.js';

const ctl = await sdkTestController();
const admin = managementClient(ctl, await ctl.adminToken());
const router = await sdkRouter(ctl, admin, 'er-measure');
const er = (await runRouterInProcess(router)).running;
await eventually(async () => er.control.connected && (await admin.get(`/edge-routers/${router.id}`)).json().data.isOnline === true);
const host = await sdkIdentity(ctl, 'm-host');
const client = await sdkIdentity(ctl, 'm-client');
await openRouterPolicies(admin);
const ports = { enc: await freePort(), plain: await freePort() };
for (const [name, enc] of [['enc', true], ['plain', false]] as const) {
  const cfg = await createdId(admin, '/configs', { name: `${name}-i`, configTypeId: 'g7cIWbcGg', data: { protocols: ['tcp'], addresses: ['127.0.0.1'], portRanges: [{ low: ports[name], high: ports[name] }] } });
  await sdkService(admin, name, { dialers: [client.id], hosts: [host.id], configs: [cfg], encryptionRequired: enc });
}
const hosting = await createContext({ identity: host.file });
// A sink: counts bytes, answers the count at the end.
for (const name of ['enc', 'plain']) {
  await hosting.listen(name, (conn) => {
    let n = 0;
    conn.on('data', (d: Buffer) => (n += d.length));
    conn.on('end', () => conn.end(String(n)));
  });
}
await eventually(async () => (await admin.get('/terminators')).json().data.length === 2);
const ctx = await createContext({ identity: client.file });
const t = await startTunneler(ctx, { bindHost: '127.0.0.1', portOffset: 0, maxPorts: 64, pollMs: 10_000, onChange: () => undefined, report: console.error });
const MB = 256;
const chunk = Buffer.alloc(1 << 20, 7);
for (const name of ['plain', 'enc', 'plain', 'enc'] as const) {
  const s = connect({ host: '127.0.0.1', port: ports[name], allowHalfOpen: true });
  await once(s, 'connect');
  const start = process.hrtime.bigint();
  for (let i = 0; i < MB; i++) if (!s.write(chunk)) await once(s, 'drain');
  s.end();
  let answer = '';
  s.on('data', (d) => (answer += d));
  await once(s, 'end');
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  console.log(`${name}: ${MB} MiB in ${ms.toFixed(0)} ms = ${((MB / ms) * 1000).toFixed(0)} MiB/s (host counted ${answer})`);
  s.destroy();
}
await t.close();
await ctx.close();
await hosting.close();
await er.stop();
router.remove();
await ctl.close();
