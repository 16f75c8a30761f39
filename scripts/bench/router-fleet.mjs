#!/usr/bin/env node
// `npm run bench -- router-fleet` (issue 41, "Measured"; needs `npm run build`): many routers on one controller.
// A quickstart controller (no router of its own) on a temporary home; --routers routers created through the management
// API and enrolled with their one-time tokens (a P-256 key and two CSRs each, made here), so each holds a real enrolled
// certificate; then one control client per router, the router's own code (dist/router/control/control-client.js),
// all in this process. Reports:
//  1. the time until all are connected, and the controller's RSS before and after (growth);
//  2. the controller's CPU over --idle seconds of idle heartbeats (10 s interval), as a share of one core, beside the
//     same window before any router connected;
//  3. revocations: --revocations legacy API sessions deleted one by one through the management API, from the DELETE
//     to the first router told and to every router told (p50, p99);
//  4. the controller stopped (SIGTERM) and started again on the same home: time from the new process's start until
//     every router is connected again, and until the controller shows them all online.
// Options: --routers N (default 1000), --idle S (default 30), --revocations N (default 200), --store sqlite|postgres.
import { spawn } from 'node:child_process';
import { webcrypto } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { request as httpsRequest } from 'node:https';
import { freePort, moveToPostgres, post, rssMiB, stop, waitFor } from './lib.mjs';
import { processCpuMs } from './cpu-budget.mjs';

const root = new URL('../..', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    routers: { type: 'string', default: '1000' },
    idle: { type: 'string', default: '30' },
    revocations: { type: 'string', default: '200' },
    store: { type: 'string', default: 'sqlite' },
  },
});
const routerCount = Number(values.routers);
const idleSeconds = Number(values.idle);
const revocationCount = Number(values.revocations);
const { startControlClient } = await import(join(root, 'dist/router/control/control-client.js'));
await import('reflect-metadata');
const x509 = await import('@peculiar/x509');
const pino = (await import('pino')).default;
x509.cryptoProvider.set(webcrypto);

const home = mkdtempSync(join(tmpdir(), 'svc-bench-fleet-'));
const svc = join(root, 'bin/svc.js');
const password = 'bench-password';
const env = { ...process.env, SVC_LOG_LEVEL: 'warn', SVC_ADMIN_PASSWORD: password };
const percentile = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One request with a session header and no body; resolves {status, json}. */
function call(method, url, ca, headers) {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method, ca, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, json: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Runs `task(i)` for i < n with `width` at a time. */
async function pool(n, width, task) {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) await task(next++);
  }));
}

async function routerCsrs(routerId) {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const csr = (extensions) => x509.Pkcs10CertificateRequestGenerator.create({ name: `CN=${routerId}`, keys, signingAlgorithm: alg, extensions });
  const client = await csr([]);
  const server = await csr([new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'localhost' }])]);
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
  return { keyPem: `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g).join('\n')}\n-----END PRIVATE KEY-----\n`, certCsr: client.toString('pem'), serverCertCsr: server.toString('pem') };
}

let child;
let cluster;
const clients = [];
try {
  const port = await freePort();
  const ctrlPort = await freePort();
  const first = spawn(process.execPath, [svc, 'quickstart', '--home', home, '--port', String(port), '--ctrl-port', String(ctrlPort), '--no-router'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  child = first;
  const ca = readFileSync(await (async () => { for (;;) { try { readFileSync(join(home, 'config.yml')); return join(home, 'pki', 'ca-bundle.pem'); } catch { await sleep(20); } } })(), 'utf8');
  const base = `https://127.0.0.1:${port}`;
  await waitFor(`${base}/edge/client/v1/version`, ca, process.hrtime.bigint(), child);
  if (values.store === 'postgres') {
    await stop(child);
    cluster = await moveToPostgres(home, svc, env, password);
    child = spawn(process.execPath, [svc, 'controller', 'run', '--config', join(home, 'config.yml')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    await waitFor(`${base}/edge/client/v1/version`, ca, process.hrtime.bigint(), child);
  }
  const login = async () => JSON.parse((await post(`${base}/edge/client/v1/authenticate?method=password`, ca, { username: 'admin', password })).text).data;
  const admin = (await login()).token;
  const headers = { 'svc-session': admin };
  const mgmt = `${base}/edge/management/v1`;

  // 1. Routers created and enrolled.
  const enrolled = [];
  const enrollStart = performance.now();
  await pool(routerCount, 8, async (i) => {
    const created = JSON.parse((await post(`${mgmt}/edge-routers`, ca, { name: `fleet-${i}` }, { headers })).text).data;
    const token = (await call('GET', `${mgmt}/edge-routers/${created.id}`, ca, headers)).json.data.enrollmentToken;
    const csrs = await routerCsrs(created.id);
    const res = await post(`${base}/edge/client/v1/enroll?method=erott&token=${token}`, ca, { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr });
    if (res.status !== 200) throw new Error(`enrollment ${i}: ${res.status} ${res.text}`);
    enrolled.push({ id: created.id, key: csrs.keyPem, cert: JSON.parse(res.text).data.cert });
  });
  console.log(`${routerCount} routers created and enrolled in ${((performance.now() - enrollStart) / 1000).toFixed(1)} s`);

  // The same idle window with no router connected: what the controller costs on its own (feed, heartbeat, sweeps).
  const idleShare = async () => {
    const before = processCpuMs(child.pid);
    const start = performance.now();
    await sleep(idleSeconds * 1000);
    return (processCpuMs(child.pid) - before) / (performance.now() - start);
  };
  const baselineShare = await idleShare();
  const rssBefore = rssMiB(child.pid);
  const log = pino({ level: 'silent' });
  const told = new Map(); // api session id -> [first ms, count]
  const hello = { protocol: 1, versionInfo: { version: 'bench', revision: 'bench', buildDate: 'now', os: 'linux', arch: 'x64' }, hostname: 'bench', listeners: [{ binding: 'edge', advertise: 'tls:fleet.example:3022' }], capabilities: ['edge'] };
  const connectStart = performance.now();
  for (const router of enrolled) {
    clients.push(startControlClient({
      endpoints: () => [`tls:127.0.0.1:${ctrlPort}`],
      tls: () => ({ key: router.key, cert: router.cert, ca }),
      hello,
      connectTimeoutMs: 10_000,
      reconnect: { minMs: 1_000, maxMs: 30_000, factor: 2 },
      heartbeat: { sendIntervalMs: 10_000, checkIntervalMs: 1_000, closeUnresponsiveMs: 30_000 },
      log,
      handlers: {
        revocations(items) {
          const now = performance.now();
          for (const item of items) {
            const seen = told.get(item.id);
            if (seen) seen.count++;
            else told.set(item.id, { first: now, last: now, count: 1 });
            if (seen) seen.last = now;
          }
        },
      },
    }));
  }
  const allConnected = async (limitMs) => {
    const until = performance.now() + limitMs;
    while (clients.some((c) => !c.connected)) {
      if (performance.now() > until) throw new Error(`${clients.filter((c) => !c.connected).length} routers not connected after ${limitMs} ms`);
      await sleep(50);
    }
  };
  await allConnected(300_000);
  const connectedMs = performance.now() - connectStart;
  await sleep(2_000);
  const rssAfter = rssMiB(child.pid);
  console.log(`all ${routerCount} connected in ${(connectedMs / 1000).toFixed(1)} s; controller RSS ${rssBefore.toFixed(1)} MiB -> ${rssAfter.toFixed(1)} MiB (+${(rssAfter - rssBefore).toFixed(1)} MiB)`);

  // 2. Idle CPU.
  const cpuShare = await idleShare();
  console.log(
    `idle: controller CPU ${(cpuShare * 100).toFixed(2)} % of one core with ${routerCount} routers heartbeating, ${(baselineShare * 100).toFixed(2)} % with none (${idleSeconds} s each); the routers' share ${((cpuShare - baselineShare) * 100).toFixed(2)} %`,
  );

  // 3. Revocations.
  const sessions = [];
  for (let i = 0; i < revocationCount; i++) sessions.push((await login()).id);
  const firsts = [];
  const alls = [];
  for (const id of sessions) {
    const start = performance.now();
    const res = await call('DELETE', `${mgmt}/api-sessions/${id}`, ca, headers);
    if (res.status !== 200) throw new Error(`delete session: ${res.status} ${JSON.stringify(res.json)}`);
    const until = start + 10_000;
    while ((told.get(id)?.count ?? 0) < routerCount && performance.now() < until) await sleep(1);
    const seen = told.get(id);
    if (!seen) throw new Error(`revocation of ${id} reached no router`);
    firsts.push(seen.first - start);
    alls.push(seen.count >= routerCount ? seen.last - start : Infinity);
  }
  const ms = (x) => (x === Infinity ? 'never' : `${x.toFixed(1)} ms`);
  console.log(`revocation, DELETE sent -> first router told: p50 ${ms(percentile(firsts, 50))}, p99 ${ms(percentile(firsts, 99))}; -> all ${routerCount} told: p50 ${ms(percentile(alls, 50))}, p99 ${ms(percentile(alls, 99))} (${revocationCount} revocations)`);

  // 4. Controller restart.
  await stop(child);
  const restartAt = performance.now();
  child = spawn(process.execPath, [svc, 'controller', 'run', '--config', join(home, 'config.yml')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  await waitFor(`${base}/edge/client/v1/version`, ca, process.hrtime.bigint(), child);
  const listeningMs = performance.now() - restartAt;
  await allConnected(300_000);
  const reconnectedMs = performance.now() - restartAt;
  const admin2 = (await login()).token;
  let shownMs;
  for (;;) {
    const page = (await call('GET', `${mgmt}/edge-routers?limit=500&filter=${encodeURIComponent('name contains "fleet-"')}`, ca, { 'svc-session': admin2 })).json;
    if (page.data.every((r) => r.isOnline)) {
      shownMs = performance.now() - restartAt;
      break;
    }
    await sleep(100);
  }
  console.log(`controller restart: listening after ${(listeningMs / 1000).toFixed(1)} s; all ${routerCount} routers connected after ${(reconnectedMs / 1000).toFixed(1)} s; the first page of routers online after ${(shownMs / 1000).toFixed(1)} s (from the new process's start; reconnect backoff 1 s .. 30 s with jitter)`);
} finally {
  await Promise.allSettled(clients.map((c) => c.stop()));
  if (child) await stop(child);
  if (cluster) await cluster.stop();
  rmSync(home, { recursive: true, force: true });
}
