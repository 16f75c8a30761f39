#!/usr/bin/env node
// `npm run bench`: measures, in one run on this machine (needs `npm run build` first; `npm ci` does it):
//  1. first-run quickstart time (process start -> first answer of GET /edge/client/v1/version),
//  2. cold start of `svc controller run --config FILE` on the home quickstart made,
//  3. requests per second of GET /edge/client/v1/version over HTTPS, and of a bare Fastify HTTPS route with
//     the same certificate and payload, and their ratio (same load generator, same connection count).
// Options: --seconds N (per load run, default 5), --connections N (default 10), --rounds N (default 5).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '10' }, rounds: { type: 'string', default: '5' } },
});

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

function get(url, ca) {
  return new Promise((resolve) => {
    const req = request(url, { ca, agent: false }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', () => resolve({ status: 0, text: '' }));
    req.end();
  });
}

async function waitFor(url, ca, started, child) {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}`);
    const res = await get(url, ca);
    if (res.status === 200) return { ms: Number(process.hrtime.bigint() - started) / 1e6, text: res.text };
    await new Promise((r) => setTimeout(r, 5));
  }
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

// wrk (C, epoll) loads a server far harder than a Node client can; without it the Node generator's own TLS cost
// caps both runs and the ratio says little. `apt-get install wrk` for meaningful figures.
const wrk = ['/usr/bin/wrk', '/usr/local/bin/wrk'].find((p) => existsSync(p));
const generator = wrk ? `wrk, 1 thread` : 'node load generator (install wrk for higher ceilings)';

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux); clock ticks are 1/100 s. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Loads `url` and measures the server's CPU per request: steadier than req/s on a machine shared with others. */
async function measured(url, ca, pid) {
  const before = cpuMs(pid);
  const result = await load(url, ca);
  const cpuUs = ((cpuMs(pid) - before) * 1000) / result.requests;
  return { ...result, cpuUs };
}

function load(url, ca) {
  if (wrk) {
    return new Promise((resolve, reject) => {
      const child = spawn(wrk, ['-t1', `-c${values.connections}`, `-d${values.seconds}s`, url], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      child.on('exit', (code) => {
        const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
        const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
        const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
        return code === 0 && rps ? resolve({ rps, errors, requests }) : reject(new Error(`wrk failed: ${out}`));
      });
    });
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'scripts/bench/load.mjs'), url, ca, values.connections, values.seconds], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load generator exited ${code}`))));
  });
}

const home = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const svc = join(root, 'bin/svc.js');
const env = { ...process.env, SVC_LOG_LEVEL: 'warn', SVC_ADMIN_PASSWORD: 'bench-password' };
try {
  const port = await freePort();
  const versionUrl = `https://127.0.0.1:${port}/edge/client/v1/version`;

  // 1. First-run quickstart: PKI, config, database, admin (argon2id hash), then listening.
  let started = process.hrtime.bigint();
  let child = spawn(process.execPath, [svc, 'quickstart', '--home', home, '--port', String(port)], { env, stdio: 'ignore' });
  // The CA bundle appears during the first run; poll for it before the TLS requests can be trusted.
  let ca;
  for (;;) {
    try {
      ca = readFileSync(join(home, 'pki/ca-bundle.pem'), 'utf8');
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  const quickstart = await waitFor(versionUrl, ca, started, child);
  await stop(child);

  // 2. Cold start from the config file quickstart wrote.
  started = process.hrtime.bigint();
  child = spawn(process.execPath, [svc, 'controller', 'run', '--config', join(home, 'config.yml')], { env, stdio: 'ignore' });
  const cold = await waitFor(versionUrl, ca, started, child);

  // 3. Throughput: the controller and a bare Fastify with the same certificate and payload, both running, loaded
  // in alternating rounds so that noise from neighbours on a shared machine hits both alike; medians reported.
  const payloadFile = join(home, 'payload.json');
  writeFileSync(payloadFile, cold.text);
  const bare = spawn(process.execPath, [join(root, 'scripts/bench/bare-fastify.mjs'), join(home, 'pki/server.chain.pem'), join(home, 'pki/server.key.pem'), payloadFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const barePort = await new Promise((resolve) => bare.stdout.on('data', (c) => resolve(Number(/ready (\d+)/.exec(String(c))[1]))));
  const svcRuns = [];
  const bareRuns = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    svcRuns.push(await measured(versionUrl, ca, child.pid));
    bareRuns.push(await measured(`https://127.0.0.1:${barePort}/version`, ca, bare.pid));
  }
  const rss = await new Promise((resolve) => {
    const ps = spawn('ps', ['-o', 'rss=', '-p', String(child.pid)]);
    let o = '';
    ps.stdout.on('data', (c) => (o += c));
    ps.on('exit', () => resolve(Number(o.trim()) / 1024));
  });
  await stop(child);
  await stop(bare);
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const svcRps = median(svcRuns.map((r) => r.rps));
  const bareRps = median(bareRuns.map((r) => r.rps));
  const errors = [...svcRuns, ...bareRuns].reduce((n, r) => n + r.errors, 0);
  const svcCpu = median(svcRuns.map((r) => r.cpuUs));
  const bareCpu = median(bareRuns.map((r) => r.cpuUs));
  const roundRatios = svcRuns.map((r, i) => (r.rps / bareRuns[i].rps).toFixed(2)).join(', ');

  const row = (name, value) => console.log(`${name.padEnd(52)} ${value}`);
  console.log(`\nsvc bench — node ${process.version}, ${generator}, ${values.connections} keep-alive connections, ${values.seconds}s per load run, ${values.rounds} alternating rounds\n`);
  row('first-run quickstart to first answer', `${quickstart.ms.toFixed(0)} ms`);
  row('cold start `svc controller run` to first answer', `${cold.ms.toFixed(0)} ms`);
  row('GET /edge/client/v1/version, svc (HTTPS), median', `${svcRps.toFixed(0)} req/s`);
  row('GET /version, bare Fastify (same cert+payload), median', `${bareRps.toFixed(0)} req/s`);
  row('ratio svc / bare Fastify (of medians)', (svcRps / bareRps).toFixed(2));
  row('ratio per round', roundRatios);
  row('server CPU per request, svc / bare Fastify (medians)', `${svcCpu.toFixed(0)} µs / ${bareCpu.toFixed(0)} µs = ${(svcCpu / bareCpu).toFixed(2)}x`);
  row('non-2xx responses or errors, all rounds', String(errors));
  row('controller RSS after the load run', `${rss.toFixed(0)} MiB`);
} finally {
  rmSync(home, { recursive: true, force: true });
}
