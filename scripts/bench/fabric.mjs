#!/usr/bin/env node
// `npm run bench -- fabric` (issue 43, "Measured"; needs `npm run build`): traffic across routers joined by links, on
// the overlay fabric-overlay.mjs builds: a controller process and three router processes, A (link dialer, tunnel
// proxy mode), B (link listener, tunnel host mode) and C (link listener); A links to B and to C. Reports:
//  1. throughput of one stream of --mib MiB from an SDK dialer at A over the link to an SDK hoster at B (edge router
//     policies: the dialer may use A only, the hoster B only), with end-to-end encryption off and on, against a bare
//     two-hop Node TLS relay (client -> relay process -> relay process -> TLS server, mutual TLS on every hop with the
//     routers' own certificates), the three alternating in --rounds rounds, each svc figure read against the baseline
//     of its own round (paired-ratio.mjs); CPU ms per MiB of each hop's process and of the two ends (this process).
//     Before the rounds each path carries 8 MiB whose SHA-256 is checked at the far end;
//  2. HTTP through the overlay: a node:http server (fixed 128-byte answer) hosted by B's tunnel (a service with a
//     host.v1 config, B's identity allowed to Bind it), reached through A's proxy-mode listener (A's identity allowed to
//     Dial it): one cold `curl`, then --http-connections keep-alive connections for --http-seconds s (http-load.mjs),
//     alternating with the same load on the server directly, --rounds rounds: requests/s, p50/p99, ratio per round;
//  3. failover: a service an SDK hosts through B and C; an SDK at A dials it, the router at the end of that circuit's
//     path is SIGKILLed, and the SDK dials again (each try --try-ms at most, then a round trip of one byte) until one
//     works: ms from the kill to that success. --kills times (the router is restarted and relinked in between):
//     median and max.
// Options: --mib N (256), --rounds N (5), --http-seconds N (5), --http-connections N (8), --kills N (5), --try-ms N
//          (1000), --parts throughput,http,failover (all), --store sqlite|postgres (sqlite), --keep (leave the
//          folder with the processes' logs and files).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as httpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startFabricOverlay } from './fabric-overlay.mjs';
import { freePort, median, stop } from './lib.mjs';
import { processCpuMs } from './cpu-budget.mjs';
import { describeAgainst } from './paired-ratio.mjs';
import { loadSdk, printReport, until } from './overlay-parts.mjs';
import { acceptQueue, identityPems, MiB, rateText, tlsClient, tlsRelayProcess, tlsSink, transfer } from './streams.mjs';

const root = new URL('../..', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    mib: { type: 'string', default: '256' },
    rounds: { type: 'string', default: '5' },
    'http-seconds': { type: 'string', default: '5' },
    'http-connections': { type: 'string', default: '8' },
    kills: { type: 'string', default: '5' },
    'try-ms': { type: 'string', default: '1000' },
    parts: { type: 'string', default: 'throughput,http,failover' },
    store: { type: 'string', default: 'sqlite' },
    keep: { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
const parts = new Set(values.parts.split(','));
const fixed = (x, digits = 2) => Number(x.toFixed(digits));

const sdk = await loadSdk();

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-fabric-'));
const rows = [];
const row = (name, value) => rows.push([name, value]);
const result = { suite: 'fabric', node: process.version, store: values.store };
const cleanups = [];
const bench = { services: ['bench-plain', 'bench-e2ee'], failover: 'bench-failover', web: 'web' };
/** The fixed answer of the HTTP server of part 2. */
const ANSWER = Buffer.alloc(128, 'x');

try {
  // Part 2's server and A's proxy port exist before the overlay: B's host.v1 config and A's file name them.
  const web = httpServer((req, res) => {
    req.resume();
    res.end(ANSWER);
  });
  web.listen(0, '127.0.0.1');
  await once(web, 'listening');
  cleanups.push(() => web.close());
  const webPort = web.address().port;
  const proxyPort = await freePort();

  const overlay = await startFabricOverlay({
    dir,
    store: values.store,
    routers: [
      { name: 'router-a', dial: true, tunnel: { mode: 'proxy', services: [`${bench.web}:${proxyPort}`] } },
      { name: 'router-b', listen: true, tunnel: { mode: 'host' } },
      { name: 'router-c', listen: true },
    ],
    identities: ['bench-dialer', 'bench-hoster-b', 'bench-hoster-bc'],
    async prepare({ mgmt, routers, identities }) {
      const { 'router-a': a, 'router-b': b, 'router-c': c } = routers;
      const erp = (name, identity, ...at) => mgmt('POST', '/edge-router-policies', { name, semantic: 'AnyOf', identityRoles: [`@${identity.id}`], edgeRouterRoles: at.map((r) => `@${r.id}`) });
      await erp('dialer-at-a', identities['bench-dialer'], a);
      await erp('hoster-at-b', identities['bench-hoster-b'], b);
      await erp('hoster-at-b-and-c', identities['bench-hoster-bc'], b, c);
      await mgmt('POST', '/service-edge-router-policies', { name: 'all-services-all-routers', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#all'] });
      const service = async (name, { encryptionRequired, dialers, hosts, configs = [] }) => {
        const created = await mgmt('POST', '/services', { name, encryptionRequired, configs });
        await mgmt('POST', '/service-policies', { name: `${name}-dial`, type: 'Dial', semantic: 'AnyOf', identityRoles: dialers.map((x) => `@${x}`), serviceRoles: [`@${created.id}`] });
        await mgmt('POST', '/service-policies', { name: `${name}-bind`, type: 'Bind', semantic: 'AnyOf', identityRoles: hosts.map((x) => `@${x}`), serviceRoles: [`@${created.id}`] });
      };
      const dialer = identities['bench-dialer'].id;
      await service('bench-plain', { encryptionRequired: false, dialers: [dialer], hosts: [identities['bench-hoster-b'].id] });
      await service('bench-e2ee', { encryptionRequired: true, dialers: [dialer], hosts: [identities['bench-hoster-b'].id] });
      await service(bench.failover, { encryptionRequired: false, dialers: [dialer], hosts: [identities['bench-hoster-bc'].id] });
      // The tunnel identities' ids are their routers' ids (issue 43 contract).
      const [hostV1] = await mgmt('GET', `/config-types?filter=${encodeURIComponent('name="host.v1"')}`);
      const config = await mgmt('POST', '/configs', { name: 'web-host', configTypeId: hostV1.id, data: { protocol: 'tcp', address: '127.0.0.1', port: webPort } });
      await service(bench.web, { encryptionRequired: true, dialers: [a.id], hosts: [b.id], configs: [config.id] });
    },
  });
  cleanups.push(() => overlay.stop());
  const { 'router-a': a, 'router-b': b } = overlay.routers;
  const terminatorsOf = async (service) => (await overlay.mgmt('GET', '/terminators?limit=500')).filter((t) => t.service?.name === service);

  const dialer = await sdk.createContext({ identityFile: overlay.identities['bench-dialer'].file });
  const hosterB = await sdk.createContext({ identityFile: overlay.identities['bench-hoster-b'].file });
  const hosterBC = await sdk.createContext({ identityFile: overlay.identities['bench-hoster-bc'].file });
  cleanups.unshift(() => Promise.allSettled([dialer.close(), hosterB.close(), hosterBC.close()]));

  if (parts.has('throughput')) {
    const queues = Object.fromEntries(bench.services.map((name) => [name, acceptQueue()]));
    for (const name of bench.services) {
      await hosterB.listen(name, (conn) => {
        conn.on('error', () => undefined);
        queues[name].push(conn);
      });
      await until(async () => (await terminatorsOf(name)).length === 1, 30_000, `no terminator of ${name}`);
    }
    // The baseline: two relay processes with A's and B's certificates, the dialer's certificate on the client.
    const client = identityPems(overlay.identities['bench-dialer'].file);
    const sink = await tlsSink(b.routerDir, overlay.ca);
    cleanups.unshift(() => sink.close());
    const second = await tlsRelayProcess(b.routerDir, overlay.caFile, sink.port);
    cleanups.unshift(() => stop(second.child));
    const first = await tlsRelayProcess(a.routerDir, overlay.caFile, second.port);
    cleanups.unshift(() => stop(first.child));
    const routerPids = { first: a.child.pid, second: b.child.pid, ends: process.pid };
    const paths = {
      baseline: { label: 'bare two-hop TLS relay', open: () => tlsClient(first.port, client, overlay.ca), accepted: sink.next, pids: { first: first.child.pid, second: second.child.pid, ends: process.pid } },
      plain: { label: 'svc over a link, encryption off', open: () => dialer.dial('bench-plain'), accepted: queues['bench-plain'].next, pids: routerPids },
      e2ee: { label: 'svc over a link, encryption on', open: () => dialer.dial('bench-e2ee'), accepted: queues['bench-e2ee'].next, pids: routerPids },
    };
    for (const path of Object.values(paths)) await transfer(path.label, path, 8 * MiB, true);
    // The path is the one asked for: A, then B over their link.
    const probe = await dialer.dial('bench-plain');
    probe.on('error', () => undefined);
    const circuit = (await overlay.circuits()).find((c) => c.service?.name === 'bench-plain');
    const path = circuit?.path.nodes.map((n) => n.name).join(' -> ') ?? '(not listed)';
    probe.destroy();
    (await queues['bench-plain'].next()).destroy();
    const runs = { baseline: [], plain: [], e2ee: [] };
    for (let round = 0; round < rounds; round++) for (const [name, p] of Object.entries(paths)) runs[name].push(await transfer(p.label, p, Number(values.mib) * MiB));
    const rates = Object.fromEntries(Object.entries(runs).map(([name, list]) => [name, list.map((r) => r.mibps)]));
    const medianOf = (name, key) => median(runs[name].map((r) => (key ? r.msPerMiB[key] : r.mibps)));
    row(`one stream of ${values.mib} MiB: bare two-hop Node TLS relay (median of ${rounds})`, rateText(medianOf('baseline')));
    row(`svc, ${path}, encryption off: MiB/s; / baseline of the round`, `${rateText(medianOf('plain'))}; ${describeAgainst(rates.plain, rates.baseline)}`);
    row('svc, same path, encryption on: MiB/s; / baseline of the round', `${rateText(medianOf('e2ee'))}; ${describeAgainst(rates.e2ee, rates.baseline)}`);
    // Where the time goes: CPU per MiB of each hop's process and of the two ends (this process), each a median.
    const cpuText = (name) => ['first', 'second', 'ends'].map((k) => medianOf(name, k).toFixed(2)).join(' / ');
    row('CPU ms per MiB, hop 1 / hop 2 / both ends: bare relays', cpuText('baseline'));
    row('CPU ms per MiB, router A / router B / both SDK ends: encryption off', cpuText('plain'));
    row('CPU ms per MiB, router A / router B / both SDK ends: encryption on', cpuText('e2ee'));
    const ratios = (name) => rates[name].map((r, i) => fixed(r / rates.baseline[i], 3));
    const cpuJson = (name) => Object.fromEntries(['first', 'second', 'ends'].map((k) => [k, fixed(medianOf(name, k), 3)]));
    result.throughput = {
      mib: Number(values.mib),
      rounds,
      path,
      mibPerSecond: Object.fromEntries(Object.entries(rates).map(([k, v]) => [k, v.map((x) => fixed(x, 1))])),
      ratioPlain: median(ratios('plain')),
      ratioE2ee: median(ratios('e2ee')),
      cpuMsPerMiB: { baseline: cpuJson('baseline'), plain: cpuJson('plain'), e2ee: cpuJson('e2ee') },
    };
  }

  if (parts.has('http')) {
    await until(async () => (await terminatorsOf(bench.web)).some((t) => t.binding === 'tunnel'), 30_000, `router-b hosts no terminator of ${bench.web}`);
    const overlayUrl = `http://127.0.0.1:${proxyPort}/`;
    const directUrl = `http://127.0.0.1:${webPort}/`;
    // One cold request: a new TCP connection to A's proxy listener, a new circuit A -> B, B's connection to the server.
    // Spawned, not spawnSync: the server answering it runs in this process.
    const curl = await new Promise((resolve) => {
      const child = spawn('curl', ['-sS', '-o', '/dev/null', '--max-time', '10', '-w', '%{http_code} %{size_download} %{time_total}', overlayUrl], { stdio: ['ignore', 'pipe', 'pipe'] });
      let [stdout, stderr] = ['', ''];
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      child.once('error', (error) => resolve({ error }));
      child.once('close', (status) => resolve({ status, stdout, stderr }));
    });
    if (curl.error) row('cold curl through A -> B', `not run (${curl.error.message})`);
    else {
      const [status, size, seconds] = curl.stdout.trim().split(' ');
      row(`cold curl ${overlayUrl} (A's proxy -> link -> B's tunnel -> server)`, `HTTP ${status}, ${size} bytes, ${(Number(seconds) * 1000).toFixed(1)} ms${curl.status ? ` (curl exit ${curl.status}: ${curl.stderr.trim()})` : ''}`);
      result.curl = { status: Number(status), bytes: Number(size), ms: fixed(Number(seconds) * 1000, 1), exit: curl.status };
    }
    const load = (url) =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [join(root, 'scripts/bench/http-load.mjs'), url, values['http-connections'], values['http-seconds']], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (c) => (out += c));
        child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`http-load.mjs exited ${code}`))));
      });
    const runs = { direct: [], overlay: [] };
    const routerCpu = [];
    for (let round = 0; round < rounds; round++) {
      runs.direct.push(await load(directUrl));
      const before = [processCpuMs(a.child.pid), processCpuMs(b.child.pid)];
      const run = await load(overlayUrl);
      runs.overlay.push(run);
      routerCpu.push([(processCpuMs(a.child.pid) - before[0]) / Math.max(1, run.requests), (processCpuMs(b.child.pid) - before[1]) / Math.max(1, run.requests)]);
    }
    const medianOf = (name, key) => median(runs[name].map((r) => r[key]));
    const errors = (name) => runs[name].reduce((sum, r) => sum + r.errors + r.warmUpErrors, 0);
    const text = (name) => `${medianOf(name, 'rps').toFixed(0)} req/s, p50 ${medianOf(name, 'p50Ms').toFixed(2)} ms, p99 ${medianOf(name, 'p99Ms').toFixed(2)} ms${errors(name) ? `, ${errors(name)} errors` : ''}`;
    const load_ = `${values['http-connections']} keep-alive connections, ${values['http-seconds']} s`;
    row(`HTTP GET, ${load_}: the server directly (median of ${rounds})`, text('direct'));
    row('HTTP GET through A -> B (tunnel, encryption on); req/s / direct of the round', `${text('overlay')}; ${describeAgainst(runs.overlay.map((r) => r.rps), runs.direct.map((r) => r.rps))}`);
    const cpuA = median(routerCpu.map((x) => x[0]));
    const cpuB = median(routerCpu.map((x) => x[1]));
    row('CPU ms per request through the overlay: router A / router B', `${cpuA.toFixed(3)} / ${cpuB.toFixed(3)}`);
    const figures = (name) => ({ rps: runs[name].map((r) => fixed(r.rps, 0)), p50Ms: fixed(medianOf(name, 'p50Ms')), p99Ms: fixed(medianOf(name, 'p99Ms')), errors: errors(name) });
    result.http = {
      connections: Number(values['http-connections']),
      seconds: Number(values['http-seconds']),
      rounds,
      direct: figures('direct'),
      overlay: figures('overlay'),
      ratio: fixed(median(runs.overlay.map((r, i) => r.rps / runs.direct[i].rps)), 3),
      cpuMsPerRequest: { routerA: fixed(cpuA, 3), routerB: fixed(cpuB, 3) },
    };
  }

  if (parts.has('failover')) {
    await hosterBC.listen(bench.failover, (conn) => {
      conn.on('error', () => undefined);
      conn.pipe(conn);
    });
    const byId = Object.fromEntries(Object.values(overlay.routers).map((r) => [r.id, r]));
    const ready = async () => {
      await overlay.linksUp(2, 60_000);
      await until(async () => (await terminatorsOf(bench.failover)).length === 2, 60_000, `${bench.failover} is not hosted through both B and C`);
    };
    /** One dial of --try-ms at most and a byte echoed back: resolves true when both worked. */
    const tryOnce = async () => {
      const limitMs = Number(values['try-ms']);
      let conn;
      let timer;
      try {
        conn = await dialer.dial(bench.failover, { timeoutMs: limitMs });
        conn.on('error', () => undefined);
        const echoed = once(conn, 'data');
        conn.write('x');
        await Promise.race([echoed, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no echo')), limitMs)))]);
        return true;
      } catch {
        return false;
      } finally {
        clearTimeout(timer);
        conn?.destroy();
      }
    };
    const kills = [];
    for (let i = 0; i < Number(values.kills); i++) {
      await ready();
      // The circuit the kill cuts: its path's last router hosts the end the SDK reached.
      const conn = await dialer.dial(bench.failover);
      conn.on('error', () => undefined);
      const circuit = (await overlay.circuits()).find((c) => c.service?.name === bench.failover);
      const victim = byId[circuit.path.nodes.at(-1).id];
      const killedAt = performance.now();
      await victim.kill('SIGKILL');
      let attempts = 1;
      while (!(await tryOnce())) {
        attempts++;
        if (performance.now() - killedAt > 60_000) throw new Error(`no dial around ${victim.name} worked within 60 s of its kill`);
      }
      kills.push({ router: victim.name, ms: performance.now() - killedAt, attempts });
      conn.destroy();
      await victim.run();
    }
    const ms = kills.map((k) => k.ms);
    row(`failover: SIGKILL of the circuit's last router -> first new dial that works (${kills.length} kills)`, `median ${median(ms).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms (each: ${kills.map((k) => `${k.router.slice(-1).toUpperCase()} ${k.ms.toFixed(0)} ms/${k.attempts}`).join(', ')})`);
    result.failover = { kills: kills.map((k) => ({ router: k.router, ms: fixed(k.ms, 1), attempts: k.attempts })), medianMs: fixed(median(ms), 1), maxMs: fixed(Math.max(...ms), 1), tryMs: Number(values['try-ms']) };
  }

  const command = `npm run bench -- fabric --mib ${values.mib} --rounds ${values.rounds} --http-seconds ${values['http-seconds']} --http-connections ${values['http-connections']} --kills ${values.kills} --try-ms ${values['try-ms']} --parts ${values.parts} --store ${values.store}`;
  printReport(`svc bench fabric — node ${process.version}, store ${values.store}, three routers (A links to B and C)`, rows, result, command);
} finally {
  for (const cleanup of cleanups) await cleanup();
  if (values.keep) console.error(`kept: ${dir} (routers' and controller's logs, files)`);
  else rmSync(dir, { recursive: true, force: true });
}
