/**
 * Throughput of the router tunnel's two ends joined on one router (issue 43): a client writes `--mb` MiB into a
 * proxy-mode port, the host-mode egress carries it to a TCP echo on loopback and back, with and without end-to-end
 * encryption (libsodium in WebAssembly), against the same echo reached directly. No controller and no links: this is
 * the cost of the tunnel ends themselves. Not part of `npm run bench`'s default suite; run it on its own:
 *
 *   npx tsx scripts/bench/tunnel-ends.ts [--mb 64]
 */
import { connect } from 'node:net';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { parseHostConfig } from '../../src/router/tunnel/host-config.js';
import { createHostEgress } from '../../src/router/tunnel/host-egress.js';
import { startProxyListeners } from '../../src/router/tunnel/proxy-listeners.js';
import { dialThrough, echoTarget, readAll, recordingControl } from '../../test/helpers/tunnel.js';

const { values } = parseArgs({ options: { mb: { type: 'string', default: '64' } } });
const bytes = Number(values.mb) * 1024 * 1024;
const log = pino({ level: 'silent' });
const echo = await echoTarget();

/** MiB/s of one round trip (written and read back) of `bytes` through `port`. */
async function roundTrip(port: number): Promise<number> {
  const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
  await once(socket, 'connect');
  const started = process.hrtime.bigint();
  const back = readAll(socket);
  const chunk = Buffer.alloc(64 * 1024, 7);
  for (let sent = 0; sent < bytes; sent += chunk.length) if (!socket.write(chunk)) await once(socket, 'drain');
  socket.end();
  const received = (await back).length;
  if (received !== bytes) throw new Error(`${received} bytes came back, not ${bytes}`);
  socket.destroy();
  return bytes / 1024 / 1024 / (Number(process.hrtime.bigint() - started) / 1e9);
}

const rows: Array<[string, number]> = [['direct to the echo', await roundTrip(echo.port)]];
for (const encrypted of [false, true]) {
  const target = parseHostConfig({ id: 'svc1', name: 'echo', encryptionRequired: encrypted, configType: 'host.v1', config: { protocol: 'tcp', address: '127.0.0.1', port: echo.port } }).targets[0]!;
  const control = recordingControl(() => ({}));
  const egress = createHostEgress({ targetFor: () => target, control, log });
  const proxy = await startProxyListeners({ host: '127.0.0.1', services: [{ name: 'echo', port: 0 }], identity: () => ({ id: 'er1', name: 'er1' }), dial: dialThrough(egress, 't1', encrypted), log });
  rows.push([`proxy end -> host egress${encrypted ? ', end-to-end encrypted' : ''}`, await roundTrip(proxy.addresses()[0]!.port)]);
  await proxy.stop();
  await egress.stop();
}
await echo.close();
for (const [what, rate] of rows) console.log(`${what.padEnd(52)} ${rate.toFixed(0).padStart(6)} MiB/s (${values.mb} MiB each way)`);
