#!/usr/bin/env node
// `npm run bench -- authz` (issue 14; needs `npm run build`): the policy engine at size, measured through HTTP.
//  1. A quickstart home (PKI, config, SQLite store), then a network seeded straight into the store (authz-seed.ts:
//     identities with 1-3 attributes out of --attributes, services, routers, service policies (Dial and Bind, AllOf
//     and AnyOf, a few `#all`), edge router and service edge router policies), with its seeding time and store size.
//  2. `GET /edge/management/v1/identities/{id}/services?limit=100` for a sample of typical identities: first once
//     each from one client (nothing of their answers kept yet), then from --connections concurrent clients for
//     --seconds: latency p50/p99, req/s and server CPU per request, against `GET /version` of a bare Fastify with the
//     same certificate and the same clients (the baseline, same run).
//     Then, logged in on the client API as an identity with a typical one's attributes: `GET /services?limit=100`
//     and `GET /current-api-session/service-updates`, the latter against the bare route's rate (with these clients,
//     then with the load generator of `npm run bench`, wrk when installed, in three alternating rounds); then `POST /sessions`
//     to dial its services in turn (refusals, e.g. no common router, are counted apart).
//  3. A policy change that touches every identity holding one attribute (PATCH its identityRoles), timed to the
//     next answer that reflects it.
//  4. Controller RSS.
// Options: --identities N (default 1000000), --services N (100000), --routers N (10000), --service-policies N (20000),
//          --router-policies N (1000 of each kind), --attributes N (1000), --seconds S (10), --connections N (10),
//          --store sqlite|postgres (default sqlite; postgres runs a throwaway cluster, or SVC_BENCH_POSTGRES_URL).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { processCpuMs } from './cpu-budget.mjs';
import { generatorName, measured as loadMeasured, median, post, rssMiB, seededHome, stop, waitFor } from './lib.mjs';

const root = new URL('../..', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    identities: { type: 'string', default: '1000000' },
    services: { type: 'string', default: '100000' },
    routers: { type: 'string', default: '10000' },
    'service-policies': { type: 'string', default: '20000' },
    'router-policies': { type: 'string', default: '1000' },
    attributes: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    store: { type: 'string', default: 'sqlite' },
  },
});
if (!['sqlite', 'postgres'].includes(values.store)) throw new Error('--store is sqlite or postgres');
const sizes = {
  identities: Number(values.identities),
  services: Number(values.services),
  routers: Number(values.routers),
  postureChecks: 10,
  servicePolicies: Number(values['service-policies']),
  edgeRouterPolicies: Number(values['router-policies']),
  serviceEdgeRouterPolicies: Number(values['router-policies']),
  attributes: Number(values.attributes),
  maxAttributesPerEntity: 3,
  allChance: 0.001,
  prefix: 'b',
};
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const home = mkdtempSync(join(tmpdir(), 'svc-bench-authz-'));
const svc = join(root, 'bin/svc.js');
const env = { ...process.env, SVC_LOG_LEVEL: 'warn', SVC_ADMIN_PASSWORD: 'bench-password' };
const rows = [];
const row = (name, value) => rows.push(`${name.padEnd(64)} ${value}`);
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

/** One GET with a kept-alive agent; resolves with [status, ms]. */
function timedGet(agent, url, headers, body) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const options = payload === undefined ? { agent, headers } : { agent, method: 'POST', headers: { ...headers, 'content-type': 'application/json' } };
    const req = request(url, options, (res) => {
      res.resume();
      // A POST that creates answers 201; either way a 2xx is a success.
      res.on('end', () => resolve([res.statusCode === 201 ? 200 : res.statusCode, Number(process.hrtime.bigint() - started) / 1e6]));
    });
    req.on('error', () => resolve([0, 0]));
    req.end(payload);
  });
}

/** One GET's answer text. */
function getText(url, ca, headers) {
  return new Promise((resolve, reject) => {
    request(url, { ca, headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve(text));
    })
      .on('error', reject)
      .end();
  });
}

/** `connections` clients asking `urlOf(i)` in turn for `seconds`: latencies of the 200s, and the failures. */
async function latencies(urlOf, ca, headers, bodyOf) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections, ca });
  const deadline = Date.now() + seconds * 1000;
  const times = [];
  let failures = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < deadline) {
        const i = next++;
        const [status, ms] = await timedGet(agent, urlOf(i), headers, bodyOf?.(i));
        if (status === 200) times.push(ms);
        else failures++;
      }
    }),
  );
  agent.destroy();
  return { p50: pct(times, 50), p99: pct(times, 99), rps: times.length / seconds, failures };
}

let cluster;
try {
  const seededAt = await seededHome({ root, home, svc, env, store: values.store, sizes, password: 'bench-password' });
  const { origin, ca, seeded, storePath } = seededAt;
  cluster = seededAt.cluster;
  const versionUrl = `${origin}/edge/client/v1/version`;
  let child;
  // 1. The network, through the store (on PostgreSQL the config points at the cluster and the admin is created there).
  row('store', values.store);
  row('network', `${sizes.identities} identities, ${sizes.services} services, ${sizes.routers} routers, ${sizes.servicePolicies} service policies, ${sizes.edgeRouterPolicies} + ${sizes.serviceEdgeRouterPolicies} router policies`);
  row('seeding: generate / write (one transaction, batched)', `${(seeded.generateMs / 1000).toFixed(1)} s / ${(seeded.seedMs / 1000).toFixed(1)} s`);
  const storeBytes = seeded.storeBytes ?? ['', '-wal'].reduce((sum, suffix) => sum + (statSync(`${storePath}${suffix}`, { throwIfNoEntry: false })?.size ?? 0), 0);
  row(values.store === 'postgres' ? 'store size (pg_database_size)' : 'store size (SQLite file + WAL)', `${(storeBytes / 2 ** 20).toFixed(0)} MiB`);

  // SVC_BENCH_NODE_ARGS adds flags to the controller's node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it.
  const nodeArgs = (process.env.SVC_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  child = spawn(process.execPath, [...nodeArgs, svc, 'controller', 'run', '--config', join(home, 'config.yml')], { env, stdio: 'ignore' });
  await waitFor(versionUrl, ca, process.hrtime.bigint(), child);
  const login = await post(`${origin}/edge/management/v1/authenticate?method=password`, ca, { username: 'admin', password: 'bench-password' });
  const token = JSON.parse(login.text).data.token;
  const headers = { 'svc-session': token };

  // 2. An identity's services, against the bare baseline with the same clients.
  const payloadFile = join(home, 'payload.json');
  writeFileSync(payloadFile, JSON.stringify({ data: { version: 'bench' }, meta: {} }));
  const bare = spawn(process.execPath, [join(root, 'scripts/bench/bare-fastify.mjs'), join(home, 'pki/server.chain.pem'), join(home, 'pki/server.key.pem'), payloadFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const barePort = await new Promise((resolve) => bare.stdout.on('data', (c) => resolve(Number(/ready (\d+)/.exec(String(c))[1]))));
  const servicesOf = (i) => `${origin}/edge/management/v1/identities/${seeded.sample[i % seeded.sample.length]}/services?limit=100`;
  // The first question of each sampled identity, one at a time: nothing of its answer is kept yet.
  const coldAgent = new Agent({ ca, keepAlive: true });
  const cold = [];
  for (let i = 0; i < seeded.sample.length; i++) {
    const [status, ms] = await timedGet(coldAgent, servicesOf(i), headers);
    if (status !== 200) throw new Error(`GET /identities/{id}/services answered ${status}`);
    cold.push(ms);
  }
  coldAgent.destroy();
  row(`first GET /identities/{id}/services?limit=100 of each of ${cold.length} identities, 1 client: p50 / p99`, `${pct(cold, 50).toFixed(1)} ms / ${pct(cold, 99).toFixed(1)} ms`);
  // CPU per request: what each server spends, apart from the clients sharing the machine with it.
  const withCpu = async (pid, run) => {
    const before = processCpuMs(pid);
    const result = await run();
    return { ...result, cpuUs: ((processCpuMs(pid) - before) * 1000) / Math.max(1, result.rps * seconds) };
  };
  const measured = await withCpu(child.pid, () => latencies(servicesOf, ca, headers));
  const baseline = await withCpu(bare.pid, () => latencies(() => `https://127.0.0.1:${barePort}/version`, ca, {}));
  row(`GET /identities/{id}/services?limit=100, ${connections} clients: p50 / p99`, `${measured.p50.toFixed(1)} ms / ${measured.p99.toFixed(1)} ms (${measured.rps.toFixed(0)} req/s, ${measured.failures} failed)`);
  row('bare Fastify GET /version, same clients: p50 / p99', `${baseline.p50.toFixed(2)} ms / ${baseline.p99.toFixed(2)} ms (${baseline.rps.toFixed(0)} req/s)`);
  row('p50 ratio svc services list / bare Fastify', `${(measured.p50 / baseline.p50).toFixed(1)}x`);
  row('server CPU per request: svc services list / bare Fastify', `${measured.cpuUs.toFixed(0)} / ${baseline.cpuUs.toFixed(0)} us = ${(measured.cpuUs / baseline.cpuUs).toFixed(1)}x`);
  // The client API as the typical identity sees it (issue 15): its services, and the service-updates poll.
  const { id: clientId, ...credentials } = seeded.client;
  const clientLogin = await post(`${origin}/edge/client/v1/authenticate?method=password`, ca, credentials);
  const clientHeaders = { 'svc-session': JSON.parse(clientLogin.text).data.token };
  const sample = await getText(`${origin}/edge/client/v1/services?limit=100`, ca, clientHeaders);
  const items = JSON.parse(sample).data;
  const queries = items.reduce((sum, service) => sum + service.postureQueries.length, 0);
  row('client GET /services?limit=100: answer size, granting policies per service', `${(Buffer.byteLength(sample) / 1024).toFixed(0)} KiB, ${(queries / Math.max(1, items.length)).toFixed(1)}`);
  const clientServices = await withCpu(child.pid, () => latencies(() => `${origin}/edge/client/v1/services?limit=100`, ca, clientHeaders));
  row(`client GET /services?limit=100, ${connections} clients: p50 / p99`, `${clientServices.p50.toFixed(1)} ms / ${clientServices.p99.toFixed(1)} ms (${clientServices.rps.toFixed(0)} req/s, ${clientServices.failures} failed, ${clientServices.cpuUs.toFixed(0)} us CPU each)`);
  const updates = await withCpu(child.pid, () => latencies(() => `${origin}/edge/client/v1/current-api-session/service-updates`, ca, clientHeaders));
  row(`client GET /current-api-session/service-updates, ${connections} clients`, `${updates.rps.toFixed(0)} req/s = ${(updates.rps / baseline.rps).toFixed(2)}x bare (p50 ${updates.p50.toFixed(2)} ms, ${updates.cpuUs.toFixed(0)} us CPU each, ${updates.failures} failed)`);
  // The same poll under the load generator of `npm run bench` (wrk when installed), in rounds alternating with the
  // bare route: Node clients cap both runs with their own TLS cost, a generator in C does not.
  const svcRounds = [];
  const bareRounds = [];
  const loadOptions = { connections, seconds: Math.min(seconds, 5), headers: clientHeaders, scratch: home };
  for (let round = 0; round < 3; round++) {
    svcRounds.push(await loadMeasured(`${origin}/edge/client/v1/current-api-session/service-updates`, ca, child.pid, loadOptions));
    bareRounds.push(await loadMeasured(`https://127.0.0.1:${barePort}/version`, ca, bare.pid, { ...loadOptions, headers: {} }));
  }
  const svcRps = median(svcRounds.map((r) => r.rps));
  const bareRps = median(bareRounds.map((r) => r.rps));
  row(`client GET /current-api-session/service-updates, ${generatorName}, medians of 3`, `${svcRps.toFixed(0)} / ${bareRps.toFixed(0)} req/s bare = ${(svcRps / bareRps).toFixed(2)}x (rounds ${svcRounds.map((r, i) => (r.rps / bareRounds[i].rps).toFixed(2)).join(', ')}; CPU ${median(svcRounds.map((r) => r.cpuUs)).toFixed(0)} / ${median(bareRounds.map((r) => r.cpuUs)).toFixed(0)} us; ${svcRounds.reduce((n, r) => n + r.errors, 0)} non-2xx)`);
  // Sessions to dial the services the identity may dial (up to 500 of them, in turn: the first request for each
  // creates a session, later ones get the API session's open one). Two router policies first, so that every one of
  // them has a router in common with the identity (the random ones rarely give a particular pair one).
  await post(`${origin}/edge/management/v1/edge-router-policies`, ca, { name: 'bench-client-routers', semantic: 'AnyOf', identityRoles: [`@${clientId}`], edgeRouterRoles: ['#all'] }, { headers });
  await post(`${origin}/edge/management/v1/service-edge-router-policies`, ca, { name: 'bench-all-routers', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#all'] }, { headers });
  const dialable = JSON.parse(await getText(`${origin}/edge/client/v1/services?limit=500`, ca, clientHeaders))
    .data.filter((service) => service.permissions.includes('Dial'))
    .map((service) => service.id);
  if (dialable.length > 0) {
    const sessions = await withCpu(child.pid, () =>
      latencies(() => `${origin}/edge/client/v1/sessions`, ca, clientHeaders, (i) => ({ serviceId: dialable[i % dialable.length], type: 'Dial' })),
    );
    row(`client POST /sessions over ${dialable.length} services, ${connections} clients`, `${sessions.rps.toFixed(0)} /s (p50 ${sessions.p50.toFixed(1)} ms, p99 ${sessions.p99.toFixed(1)} ms, ${sessions.cpuUs.toFixed(0)} us CPU each, ${sessions.failures} refused)`);
  }
  await stop(bare);

  // 3. A policy change that touches every identity holding one attribute, timed to the first answer reflecting it.
  if (seeded.policy) {
    const attribute = seeded.policy.role.slice(1);
    const started = process.hrtime.bigint();
    const res = await post(`${origin}/edge/management/v1/service-policies/${seeded.policy.id}`, ca, { identityRoles: ['#all'] }, { method: 'PATCH', headers });
    const patchMs = Number(process.hrtime.bigint() - started) / 1e6;
    if (res.status !== 200) throw new Error(`PATCH service policy answered ${res.status}: ${res.text}`);
    row(`PATCH a service policy from #${attribute} to #all (reaches every identity)`, `${patchMs.toFixed(1)} ms`);
    // The next answer for an identity the policy did not reach before shows the change: nothing is recomputed.
    const after = await timedGet(new Agent({ ca }), servicesOf(1), headers);
    row('next GET /identities/{id}/services after the change', `${after[1].toFixed(1)} ms (status ${after[0]})`);
  }
  row('controller RSS after the runs', `${rssMiB(child.pid).toFixed(0)} MiB`);
  await stop(child);
} finally {
  cluster?.stop();
  rmSync(home, { recursive: true, force: true });
}
process.stdout.write(`${rows.join('\n')}\n`);
