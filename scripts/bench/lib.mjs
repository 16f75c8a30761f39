// Helpers of `npm run bench`: processes, ports, readiness, and load runs (wrk when installed, else a Node
// generator) with the server's CPU time per request read from /proc.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { findPostgresBin, startThrowawayCluster } from '../lib/postgres-cluster.mjs';
import { processCpuMs } from './cpu-budget.mjs';
import { wrkResult } from './wrk-output.mjs';

const here = new URL('.', import.meta.url).pathname;

export const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

export function get(url, ca) {
  return new Promise((resolve) => {
    const req = request(url, { ca, agent: false }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, text, headers: res.headers }));
    });
    req.on('error', () => resolve({ status: 0, text: '' }));
    req.end();
  });
}

export function post(url, ca, body, { method = 'POST', headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, agent: false, method, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Polls `url` until it answers 200; returns the time since `started` (hrtime) and the body. */
export async function waitFor(url, ca, started, child) {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}`);
    const res = await get(url, ca);
    if (res.status === 200) return { ms: Number(process.hrtime.bigint() - started) / 1e6, text: res.text };
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The text of a file another process is about to write (polled every 5 ms until it can be read). */
export async function readWhenWritten(path) {
  for (;;) {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

export function stop(child) {
  return new Promise((resolve) => {
    // A child a signal ended has a signalCode and no exitCode.
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

export function rssMiB(pid) {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}


// wrk (C, epoll) loads a server far harder than a Node client can; without it the Node generator's own TLS cost
// caps both runs and the ratio says little. `apt-get install wrk` for meaningful figures.
export const wrk = ['/usr/bin/wrk', '/usr/local/bin/wrk'].find((p) => existsSync(p));
export const generatorName = wrk ? 'wrk, 1 thread' : 'node load generator (install wrk for higher ceilings)';

/**
 * Loads `url` for `seconds` with `connections` keep-alive connections. `options`: {method, body, headers}.
 * Resolves {rps (2xx answers per second), errors (non-2xx), requests (2xx answers)}.
 */
export function load(url, ca, { connections, seconds, method = 'GET', body, headers = {}, scratch }) {
  if (wrk) {
    const args = ['-t1', `-c${connections}`, `-d${seconds}s`];
    for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
    if (method !== 'GET') {
      const script = join(scratch, `wrk-${Math.random().toString(36).slice(2)}.lua`);
      writeFileSync(script, `wrk.method = ${JSON.stringify(method)}\nwrk.body = ${JSON.stringify(body ?? '')}\nwrk.headers["Content-Type"] = "application/json"\n`);
      args.push('-s', script);
    }
    return new Promise((resolve, reject) => {
      const child = spawn(wrk, [...args, url], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      child.on('exit', (code) => {
        // Only 2xx answers count in the rate and in `requests` (wrk-output.mjs), as in load.mjs.
        const result = wrkResult(out);
        return code === 0 && result?.rps ? resolve(result) : reject(new Error(`wrk failed: ${out}`));
      });
    });
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, 'load.mjs'), url, ca, String(connections), String(seconds), method, body ?? '', JSON.stringify(headers)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load generator exited ${code}`))));
  });
}

/** A load run with the server's CPU per request: steadier than req/s on a machine shared with others. */
export async function measured(url, ca, pid, options) {
  const before = processCpuMs(pid);
  const result = await load(url, ca, options);
  return { ...result, cpuUs: ((processCpuMs(pid) - before) * 1000) / Math.max(1, result.requests) };
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Points the config of a quickstart home at PostgreSQL (SVC_BENCH_POSTGRES_URL, else a throwaway cluster) and creates
 * the admin there with `password`. Resolves with the URL and the cluster to stop afterwards (none for a given URL).
 */
export async function moveToPostgres(home, svc, env, password) {
  let url = process.env.SVC_BENCH_POSTGRES_URL;
  let cluster;
  if (!url) {
    const bin = findPostgresBin();
    if (!bin) throw new Error('--store postgres needs PostgreSQL binaries or SVC_BENCH_POSTGRES_URL');
    cluster = await startThrowawayCluster(bin);
    url = cluster.url;
  }
  const configFile = join(home, 'config.yml');
  writeFileSync(configFile, readFileSync(configFile, 'utf8').replace(/^db: .*$/m, `db: ${url}`));
  await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [svc, 'controller', 'create-admin', '--config', configFile, '--admin-user', 'admin', '--admin-password', password], { env, stdio: 'inherit' });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error('create-admin on PostgreSQL failed'))));
  });
  return { url, cluster };
}

/**
 * The command line of a bench on the seeded network (`console`, `change-preview`): the network's sizes (a million
 * identities by default), --rounds (default `rounds`) and --store; resolves them into the sizes authz-seed.ts takes.
 */
export function seededNetworkArguments(rounds) {
  const { values } = parseArgs({
    options: {
      identities: { type: 'string', default: '1000000' },
      services: { type: 'string', default: '10000' },
      routers: { type: 'string', default: '1000' },
      'service-policies': { type: 'string', default: '2000' },
      'router-policies': { type: 'string', default: '100' },
      rounds: { type: 'string', default: String(rounds) },
      store: { type: 'string', default: 'sqlite' },
    },
  });
  const sizes = {
    identities: Number(values.identities),
    services: Number(values.services),
    routers: Number(values.routers),
    postureChecks: 10,
    servicePolicies: Number(values['service-policies']),
    edgeRouterPolicies: Number(values['router-policies']),
    serviceEdgeRouterPolicies: Number(values['router-policies']),
    attributes: 1000,
    maxAttributesPerEntity: 3,
    allChance: 0.001,
    prefix: 'b',
  };
  return { values, rounds: Number(values.rounds), sizes };
}

/**
 * A quickstart home holding the authorization bench's network (authz-seed.ts, straight into the store) on `store`
 * (sqlite, or postgres through moveToPostgres), the quickstart stopped again: what `authz` and `console` start from.
 * Resolves with the origin, the CA, what the seeding printed and the cluster to stop (postgres only).
 */
export async function seededHome({ root, home, svc, env, store, sizes, password }) {
  const port = await freePort();
  const origin = `https://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [svc, 'quickstart', '--home', home, '--port', String(port)], { env, stdio: 'ignore' });
  const ca = await readWhenWritten(join(home, 'pki/ca-bundle.pem'));
  await waitFor(`${origin}/edge/client/v1/version`, ca, process.hrtime.bigint(), child);
  await stop(child);
  let target = join(home, 'db/svc.sqlite');
  let cluster;
  if (store === 'postgres') ({ url: target, cluster } = await moveToPostgres(home, svc, env, password));
  const seeded = JSON.parse(await childOutput(root, ['--import', 'tsx', join(root, 'scripts/bench/authz-seed.ts'), target, JSON.stringify(sizes)]));
  return { origin, ca, seeded, cluster, storePath: join(home, 'db/svc.sqlite') };
}

/** Runs node with `args` in `cwd` to completion and resolves with its standard output. */
export function childOutput(cwd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')} exited ${code}`))));
  });
}
