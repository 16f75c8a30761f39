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
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, createServer as tlsServer } from 'node:tls';
import { parseArgs } from 'node:util';
import { startOverlay } from './edge-overlay.mjs';
import { median, stop } from './lib.mjs';
import { processCpuMs } from './cpu-budget.mjs';
import { describeAgainst } from './paired-ratio.mjs';
import { idleChannels } from './edge-idle.mjs';

const root = new URL('../..', import.meta.url).pathname;
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
const MiB = 1_048_576;
const totalBytes = Number(values.mib) * MiB;
const rounds = Number(values.rounds);
const parts = new Set(values.parts.split(','));
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

const sdk = await import(join(root, 'dist/sdk/index.js')).catch((error) => {
  throw new Error(`the SDK is not in dist (${error.message}): npm run build, with src/sdk present`);
});

/** A `pem:` or `file:` value of an SDK identity file. */
const pemOf = (value) => (value.startsWith('pem:') ? value.slice(4) : readFileSync(value.replace(/^file:/, ''), 'utf8'));
const identityPems = (file) => {
  const { id } = JSON.parse(readFileSync(file, 'utf8'));
  return { cert: pemOf(id.cert), key: pemOf(id.key), ca: pemOf(id.ca) };
};

/** Hands each connection a listener accepts to the next waiter (or keeps it until one asks). */
function acceptQueue() {
  const ready = [];
  const waiting = [];
  return {
    push(conn) {
      const waiter = waiting.shift();
      if (waiter) waiter(conn);
      else ready.push(conn);
    },
    next: () => (ready.length > 0 ? Promise.resolve(ready.shift()) : new Promise((resolve) => waiting.push(resolve))),
  };
}

const BLOCK = randomBytes(MiB);
/** Writes `bytes` in 1 MiB writes, waiting for drain when asked to, then ends. */
async function send(stream, bytes) {
  for (let sent = 0; sent < bytes; sent += BLOCK.length) {
    if (!stream.write(bytes - sent >= BLOCK.length ? BLOCK : BLOCK.subarray(0, bytes - sent))) await once(stream, 'drain');
  }
  stream.end();
}
/** The SHA-256 of what `send` writes. */
function sentDigest(bytes) {
  const hash = createHash('sha256');
  for (let sent = 0; sent < bytes; sent += BLOCK.length) hash.update(bytes - sent >= BLOCK.length ? BLOCK : BLOCK.subarray(0, bytes - sent));
  return hash.digest('hex');
}
/** Reads until `bytes` arrived (or the stream ends); resolves with the count, the time of the last byte and, if asked, the SHA-256. */
function receive(stream, bytes, withHash) {
  return new Promise((resolve, reject) => {
    const hash = withHash ? createHash('sha256') : undefined;
    let count = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve({ count, at: performance.now(), digest: hash?.digest('hex') });
    };
    stream.on('data', (chunk) => {
      count += chunk.length;
      hash?.update(chunk);
      if (count >= bytes) finish();
    });
    stream.once('end', finish);
    stream.once('error', (error) => (done ? undefined : reject(error)));
  });
}

/**
 * One stream of `bytes` from a connection `open()` makes to the one `accepted()` answers, checking the hash when
 * asked. Resolves with MiB/s and the CPU ms per MiB of the middle hop (`middlePid`: the relay or the router) and of
 * this process (both ends).
 */
async function transfer(label, { open, accepted, middlePid }, bytes, check = false) {
  const far = accepted();
  const near = await open();
  const receiving = receive(await far, bytes, check);
  const cpu = [processCpuMs(middlePid), processCpuMs(process.pid)];
  const start = performance.now();
  await send(near, bytes);
  const got = await receiving;
  const mib = bytes / MiB;
  const [middleMs, endsMs] = [processCpuMs(middlePid) - cpu[0], processCpuMs(process.pid) - cpu[1]];
  near.destroy();
  if (got.count !== bytes) throw new Error(`${label}: ${got.count} of ${bytes} bytes arrived`);
  if (check && got.digest !== sentDigest(bytes)) throw new Error(`${label}: the bytes that arrived differ from those sent (SHA-256)`);
  return { mibps: mib / ((got.at - start) / 1000), middleMsPerMiB: middleMs / mib, endsMsPerMiB: endsMs / mib };
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-edge-'));
const rows = [];
const row = (name, value) => rows.push(`${name.padEnd(64)} ${value}`);
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
    const routerPem = (name) => join(overlay.routerDir, name);
    const sinkQueue = acceptQueue();
    const sink = tlsServer({ cert: readFileSync(routerPem('server.cert.pem')), key: readFileSync(routerPem('router.key.pem')), ca: overlay.ca, requestCert: true, rejectUnauthorized: true }, (socket) => {
      socket.on('error', () => undefined);
      sinkQueue.push(socket);
    });
    sink.listen(0, '127.0.0.1');
    await once(sink, 'listening');
    cleanups.unshift(() => sink.close());
    const relay = spawn(process.execPath, [join(root, 'scripts/bench/tls-relay.mjs'), routerPem('server.cert.pem'), routerPem('router.key.pem'), routerPem('client.cert.pem'), routerPem('router.key.pem'), overlay.caFile, String(sink.address().port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    cleanups.unshift(() => stop(relay));
    const relayPort = await new Promise((resolve) => relay.stdout.on('data', (c) => resolve(Number(/ready (\d+)/.exec(String(c))[1]))));
    const bareOpen = async () => {
      const socket = tlsConnect({ host: '127.0.0.1', port: relayPort, servername: 'localhost', cert: client.cert, key: client.key, ca: overlay.ca });
      await once(socket, 'secureConnect');
      return socket;
    };
    const paths = {
      baseline: { label: 'bare TLS relay', open: bareOpen, accepted: sinkQueue.next, middlePid: relay.pid },
      plain: { label: 'svc, encryption off', open: () => dialer.dial('bench-plain'), accepted: queues['bench-plain'].next, middlePid: overlay.routerPid },
      e2ee: { label: 'svc, encryption on', open: () => dialer.dial('bench-e2ee'), accepted: queues['bench-e2ee'].next, middlePid: overlay.routerPid },
    };
    for (const path of Object.values(paths)) await transfer(path.label, path, 8 * MiB, true);
    const runs = { baseline: [], plain: [], e2ee: [] };
    for (let round = 0; round < rounds; round++) for (const [name, path] of Object.entries(paths)) runs[name].push(await transfer(path.label, path, totalBytes));
    const rates = Object.fromEntries(Object.entries(runs).map(([name, list]) => [name, list.map((r) => r.mibps)]));
    const mbit = (mibps) => `${((mibps * MiB * 8) / 1e6).toFixed(0)} Mbit/s`;
    const medianOf = (name, key = 'mibps') => median(runs[name].map((r) => r[key]));
    row(`one stream of ${values.mib} MiB: bare Node TLS relay (median of ${rounds})`, `${medianOf('baseline').toFixed(1)} MiB/s (${mbit(medianOf('baseline'))})`);
    row('svc, encryption off: MiB/s; / baseline of the same round', `${medianOf('plain').toFixed(1)} MiB/s (${mbit(medianOf('plain'))}); ${describeAgainst(rates.plain, rates.baseline)}`);
    row('svc, encryption on: MiB/s; / baseline of the same round', `${medianOf('e2ee').toFixed(1)} MiB/s (${mbit(medianOf('e2ee'))}); ${describeAgainst(rates.e2ee, rates.baseline)}`);
    // Where the time goes: CPU per MiB of the hop in the middle and of the two ends (this process), each a median.
    const cpuText = (name) => `${medianOf(name, 'middleMsPerMiB').toFixed(2)} / ${medianOf(name, 'endsMsPerMiB').toFixed(2)}`;
    row('CPU ms per MiB, middle hop / both ends: bare relay', cpuText('baseline'));
    row('CPU ms per MiB, router / both SDK ends: encryption off; on', `${cpuText('plain')}; ${cpuText('e2ee')}`);
    const ratios = (name) => rates[name].map((r, i) => Number((r / rates.baseline[i]).toFixed(3)));
    const cpuJson = (name) => ({ middleMsPerMiB: Number(medianOf(name, 'middleMsPerMiB').toFixed(3)), endsMsPerMiB: Number(medianOf(name, 'endsMsPerMiB').toFixed(3)) });
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
  console.log(`\nsvc bench edge-relay — node ${process.version}, store ${values.store}, one router\n`);
  for (const line of rows) console.log(line);
  console.log(`\nrepeat: ${command}`);
  console.log(JSON.stringify({ ...result, command }));
} finally {
  for (const cleanup of cleanups) await cleanup();
  rmSync(dir, { recursive: true, force: true });
}
