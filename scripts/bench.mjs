#!/usr/bin/env node
// `npm run bench`: measures, in one run on this machine (needs `npm run build` first; `npm ci` does it):
//  1. first-run quickstart time (process start -> first answer of GET /edge/client/v1/version),
//  2. cold start of `svc controller run --config FILE` on the home quickstart made,
//  3. requests per second of GET /edge/client/v1/version over HTTPS, and of a bare Fastify HTTPS route with
//     the same certificate and payload, and their ratio (same load generator, same connection count).
// Options: --seconds N (per load run, default 5), --connections N (default 10).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '10' } } });

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

function load(url, ca) {
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

  // 3. Throughput: the controller, then bare Fastify with the same certificate and payload.
  const svcLoad = await load(versionUrl, ca);
  const rss = await new Promise((resolve) => {
    const ps = spawn('ps', ['-o', 'rss=', '-p', String(child.pid)]);
    let o = '';
    ps.stdout.on('data', (c) => (o += c));
    ps.on('exit', () => resolve(Number(o.trim()) / 1024));
  });
  await stop(child);

  const payloadFile = join(home, 'payload.json');
  writeFileSync(payloadFile, cold.text);
  const bare = spawn(process.execPath, [join(root, 'scripts/bench/bare-fastify.mjs'), join(home, 'pki/server.chain.pem'), join(home, 'pki/server.key.pem'), payloadFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const barePort = await new Promise((resolve) => bare.stdout.on('data', (c) => resolve(Number(/ready (\d+)/.exec(String(c))[1]))));
  const bareLoad = await load(`https://127.0.0.1:${barePort}/version`, ca);
  await stop(bare);

  const row = (name, value) => console.log(`${name.padEnd(52)} ${value}`);
  console.log(`\nsvc bench — node ${process.version}, ${values.connections} keep-alive connections, ${values.seconds}s per load run\n`);
  row('first-run quickstart to first answer', `${quickstart.ms.toFixed(0)} ms`);
  row('cold start `svc controller run` to first answer', `${cold.ms.toFixed(0)} ms`);
  row('GET /edge/client/v1/version, svc (HTTPS)', `${svcLoad.rps.toFixed(0)} req/s (${svcLoad.errors} errors)`);
  row('GET /version, bare Fastify (HTTPS, same cert+payload)', `${bareLoad.rps.toFixed(0)} req/s (${bareLoad.errors} errors)`);
  row('ratio svc / bare Fastify', (svcLoad.rps / bareLoad.rps).toFixed(2));
  row('controller RSS after the load run', `${rss.toFixed(0)} MiB`);
} finally {
  rmSync(home, { recursive: true, force: true });
}
