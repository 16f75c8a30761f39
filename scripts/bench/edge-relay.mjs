#!/usr/bin/env node
// `npm run bench -- edge-relay` (issue 42, "Measured"; needs `npm run build`): traffic through one router, on the
// overlay edge-overlay.mjs builds (a controller process, a router process, two enrolled identities). Reports:
//  1. throughput of one stream of --mib MiB: a bare Node TLS relay over the same hops (client -> TLS relay process ->
//     TLS server, tls-relay.mjs) against svc (dialing SDK context -> router -> hosting SDK context, `dial` and
//     `listen` of svc/sdk), with end-to-end encryption off (a service with encryptionRequired false) and on; the
//     three alternate in --rounds rounds and each svc figure is read against the baseline of its own round. Both
//     ends of every path live in this process; the relay and the router each in their own. Before the rounds, each
//     path carries 8 MiB whose SHA-256 is checked at the far end;
//  2. dial setup: --dials dials of one service, --concurrency at a time, each until the SDK's dial resolves (the
//     router asked the controller, which chose the hoster's terminator, the hoster accepted): p50, p99, dials/s;
//  3. idle channels (edge-idle.mjs): --channels raw SDK channels (TLS with the dialer's certificate, ALPN ziti-edge,
//     the Hello with one OIDC access token, src/channel from dist) open to the router: its RSS before and after, per
//     channel; beside it, as many idle mutual-TLS connections held by a bare Node TLS server.
// Options: --mib N (256), --rounds N (3), --dials N (2000), --concurrency N (16), --channels N (10000),
//          --parts throughput,dials,idle (all), --store sqlite|postgres (sqlite).
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startOverlay } from './edge-overlay.mjs';
import { loadSdk, printReport } from './overlay-parts.mjs';
import { median, stop } from './lib.mjs';
import { processCpuMs } from './cpu-budget.mjs';
import { describeAgainst } from './paired-ratio.mjs';
import { idleChannels } from './edge-idle.mjs';
import { acceptQueue, identityPems, MiB, rateText, tlsClient, tlsRelayProcess, tlsSink, transfer } from './streams.mjs';

const { values } = parseArgs({
  options: {
    mib: { type: 'string', default: '256' },
    rounds: { type: 'string', default: '3' },
    dials: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '16' },
    channels: { type: 'string', default: '10000' },
    parts: { type: 'string', default: 'throughput,dials,idle' },
    store: { type: 'string', default: 'sqlite' },
  },
});
const totalBytes = Number(values.mib) * MiB;
const rounds = Number(values.rounds);
const parts = new Set(values.parts.split(','));
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

const sdk = await loadSdk();

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-edge-'));
const rows = [];
const row = (name, value) => rows.push([name, value]);
const result = { suite: 'edge-relay', node: process.version, store: values.store };
const cleanups = [];
try {
  const services = [
    { name: 'bench-plain', encryptionRequired: false },
    { name: 'bench-e2ee', encryptionRequired: true },
    { name: 'bench-dials', encryptionRequired: false },
  ];
  const overlay = await startOverlay({ dir, store: values.store, services });
  cleanups.push(() => overlay.stop());
  const hoster = await sdk.createContext({ identityFile: overlay.hoster.file });
  const dialer = await sdk.createContext({ identityFile: overlay.dialer.file });
  cleanups.unshift(() => Promise.allSettled([hoster.close(), dialer.close()]));
  const queues = Object.fromEntries(services.map((s) => [s.name, acceptQueue()]));
  for (const service of services) {
    const listener = await hoster.listen(service.name, (conn) => {
      conn.on('error', () => undefined);
      if (service.name === 'bench-dials') conn.resume();
      else queues[service.name].push(conn);
    });
    if (listener.routers.length === 0) await once(listener, 'bound');
  }

  if (parts.has('throughput')) {
    // The baseline: the router's own certificates on a bare relay, the dialer's certificate on the client.
    const client = identityPems(overlay.dialer.file);
    const sink = await tlsSink(overlay.routerDir, overlay.ca);
    cleanups.unshift(() => sink.close());
    const relay = await tlsRelayProcess(overlay.routerDir, overlay.caFile, sink.port);
    cleanups.unshift(() => stop(relay.child));
    const bareOpen = () => tlsClient(relay.port, client, overlay.ca);
    const paths = {
      baseline: { label: 'bare TLS relay', open: bareOpen, accepted: sink.next, pids: { middle: relay.child.pid, ends: process.pid } },
      plain: { label: 'svc, encryption off', open: () => dialer.dial('bench-plain'), accepted: queues['bench-plain'].next, pids: { middle: overlay.routerPid, ends: process.pid } },
      e2ee: { label: 'svc, encryption on', open: () => dialer.dial('bench-e2ee'), accepted: queues['bench-e2ee'].next, pids: { middle: overlay.routerPid, ends: process.pid } },
    };
    for (const path of Object.values(paths)) await transfer(path.label, path, 8 * MiB, true);
    const runs = { baseline: [], plain: [], e2ee: [] };
    for (let round = 0; round < rounds; round++) for (const [name, path] of Object.entries(paths)) runs[name].push(await transfer(path.label, path, totalBytes));
    const rates = Object.fromEntries(Object.entries(runs).map(([name, list]) => [name, list.map((r) => r.mibps)]));
    const medianOf = (name, key) => median(runs[name].map((r) => (key ? r.msPerMiB[key] : r.mibps)));
    row(`one stream of ${values.mib} MiB: bare Node TLS relay (median of ${rounds})`, rateText(medianOf('baseline')));
    row('svc, encryption off: MiB/s; / baseline of the same round', `${rateText(medianOf('plain'))}; ${describeAgainst(rates.plain, rates.baseline)}`);
    row('svc, encryption on: MiB/s; / baseline of the same round', `${rateText(medianOf('e2ee'))}; ${describeAgainst(rates.e2ee, rates.baseline)}`);
    // Where the time goes: CPU per MiB of the hop in the middle and of the two ends (this process), each a median.
    const cpuText = (name) => `${medianOf(name, 'middle').toFixed(2)} / ${medianOf(name, 'ends').toFixed(2)}`;
    row('CPU ms per MiB, middle hop / both ends: bare relay', cpuText('baseline'));
    row('CPU ms per MiB, router / both SDK ends: encryption off; on', `${cpuText('plain')}; ${cpuText('e2ee')}`);
    const ratios = (name) => rates[name].map((r, i) => Number((r / rates.baseline[i]).toFixed(3)));
    const cpuJson = (name) => ({ middleMsPerMiB: Number(medianOf(name, 'middle').toFixed(3)), endsMsPerMiB: Number(medianOf(name, 'ends').toFixed(3)) });
    result.throughput = {
      mib: Number(values.mib),
      rounds,
      mibPerSecond: Object.fromEntries(Object.entries(rates).map(([k, v]) => [k, v.map((x) => Number(x.toFixed(1)))])),
      ratioPlain: median(ratios('plain')),
      ratioE2ee: median(ratios('e2ee')),
      cpu: { baseline: cpuJson('baseline'), plain: cpuJson('plain'), e2ee: cpuJson('e2ee') },
    };
  }

  if (parts.has('dials')) {
    const dials = Number(values.dials);
    const concurrency = Number(values.concurrency);
    const dialOnce = async () => {
      const started = performance.now();
      const conn = await dialer.dial('bench-dials');
      const ms = performance.now() - started;
      conn.on('error', () => undefined);
      conn.destroy();
      return ms;
    };
    for (let i = 0; i < 100; i++) await dialOnce(); // warm-up: sessions, router links, JIT
    const latencies = [];
    const failures = [];
    let next = 0;
    const pids = { controller: overlay.controllerPid, router: overlay.routerPid, sdks: process.pid };
    const cpuBefore = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, processCpuMs(pid)]));
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < dials) {
          next++;
          await dialOnce().then((ms) => latencies.push(ms), (error) => failures.push(error.message));
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const perSecond = latencies.length / seconds;
    // Where a dial's work is done: CPU ms per dial of the controller (access, posture, terminator choice), the router
    // and this process (both SDK contexts).
    const cpuPerDial = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, Number(((processCpuMs(pid) - cpuBefore[k]) / Math.max(1, latencies.length)).toFixed(3))]));
    row(`dial setup, ${dials} dials, ${concurrency} at a time: p50, p99, max`, `${percentile(latencies, 50).toFixed(2)} ms, ${percentile(latencies, 99).toFixed(2)} ms, ${Math.max(...latencies).toFixed(2)} ms`);
    row('dials per second on one router', `${perSecond.toFixed(0)}${failures.length ? ` (${failures.length} failed: ${failures[0]})` : ''}`);
    row('CPU ms per dial: controller / router / both SDK contexts', `${cpuPerDial.controller.toFixed(2)} / ${cpuPerDial.router.toFixed(2)} / ${cpuPerDial.sdks.toFixed(2)}`);
    result.dials = { dials, concurrency, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), perSecond, failed: failures.length, cpuMsPerDial: cpuPerDial };
  }

  if (parts.has('idle')) {
    const { bare, router } = await idleChannels({ overlay, count: Number(values.channels) });
    const failed = (r) => (r.failed ? ` (${r.failed} failed to open: ${r.firstFailure})` : '');
    row(`idle: ${bare.open} mutual-TLS connections held by a bare Node TLS server`, `RSS ${bare.beforeMiB.toFixed(1)} -> ${bare.afterMiB.toFixed(1)} MiB: ${bare.perKiB.toFixed(1)} KiB each${failed(bare)}`);
    row(`idle: ${router.open} SDK channels (TLS + Hello) open to the router, in ${router.seconds.toFixed(1)} s`, `RSS ${router.beforeMiB.toFixed(1)} -> ${router.afterMiB.toFixed(1)} MiB: ${router.perKiB.toFixed(1)} KiB each${failed(router)}`);
    const figures = ({ open, failed: failures, beforeMiB, afterMiB, perKiB }) => ({ open, failed: failures, rssBeforeMiB: Number(beforeMiB.toFixed(1)), rssAfterMiB: Number(afterMiB.toFixed(1)), perChannelKiB: Number(perKiB.toFixed(1)) });
    result.idle = { bareTls: figures(bare), router: figures(router) };
  }

  const command = `npm run bench -- edge-relay --mib ${values.mib} --rounds ${values.rounds} --dials ${values.dials} --concurrency ${values.concurrency} --channels ${values.channels} --parts ${values.parts} --store ${values.store}`;
  printReport(`svc bench edge-relay — node ${process.version}, store ${values.store}, one router`, rows, result, command);
} finally {
  for (const cleanup of cleanups) await cleanup();
  rmSync(dir, { recursive: true, force: true });
}
