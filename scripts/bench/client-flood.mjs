#!/usr/bin/env node
// `npm run bench -- client-flood` (issue 40, must-have 4; decision 0058; needs `npm run build`): how much one device
// identity can grow the store. A fresh quickstart controller on a temporary SQLite file, --services services every
// identity may dial, and one non-administrator device. For --seconds, --connections clients flood as that device:
// half of them log in and open a session to every service in turn with about 1 MiB of `tags`, logging in again once
// they have opened them all (a new API session to fill); the other half log in once and ask for ephemeral
// certificates on that API session, one after the other.
// Reports the answers by status, the store's growth in bytes (SQLite file + WAL, the controller stopped) and the
// rows of client state it holds. Run it on two checkouts to compare them.
// Options: --seconds N (default 15), --connections N (default 4), --services N (default 100).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import SqliteDriver from 'better-sqlite3';
import { freePort, post, readWhenWritten, stop, waitFor } from './lib.mjs';

const root = new URL('../..', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '15' },
    connections: { type: 'string', default: '4' },
    services: { type: 'string', default: '100' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const serviceCount = Number(values.services);
const home = mkdtempSync(join(tmpdir(), 'svc-bench-flood-'));
const svc = join(root, 'bin/svc.js');
const env = { ...process.env, SVC_LOG_LEVEL: 'warn', SVC_ADMIN_PASSWORD: 'bench-password' };
const storePath = join(home, 'db/svc.sqlite');
const DEVICE = { username: 'flood-device', password: 'flood-device-password' };
/** About 1 MiB of tags: the listeners' body limit, less room for the rest of the body. */
const TAGS = { blob: 'x'.repeat(1024 * 1024 - 512) };
const CLIENT_TABLES = ['api_sessions', 'edge_sessions', 'api_session_certificates', 'posture_responses'];

const storeBytes = () => ['', '-wal'].reduce((sum, suffix) => sum + (statSync(`${storePath}${suffix}`, { throwIfNoEntry: false })?.size ?? 0), 0);
function rowCounts() {
  const db = new SqliteDriver(storePath, { readonly: true });
  try {
    return Object.fromEntries(CLIENT_TABLES.map((table) => [table, db.prepare(`select count(*) as n from ${table}`).get().n]));
  } finally {
    db.close();
  }
}

/** One JSON request on a kept-alive agent; resolves {status, json}. */
function send(agent, url, method, headers, body) {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(url, { agent, method, headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        let json;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode, json });
      });
    });
    req.on('error', () => resolve({ status: 0 }));
    req.end(payload);
  });
}

/** A P-256 CSR made by openssl (the client keeps no key here: only the store's growth is measured). */
function csrPem() {
  const made = spawnSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=flood', '-keyout', join(home, 'flood.key')], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
  return made.stdout;
}

let child;
try {
  const port = await freePort();
  const origin = `https://127.0.0.1:${port}`;
  const versionUrl = `${origin}/edge/client/v1/version`;
  child = spawn(process.execPath, [svc, 'quickstart', '--home', home, '--port', String(port)], { env, stdio: 'ignore' });
  const ca = await readWhenWritten(join(home, 'pki/ca-bundle.pem'));
  await waitFor(versionUrl, ca, process.hrtime.bigint(), child);
  await stop(child);
  spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts/bench/client-flood-seed.ts'), storePath, DEVICE.username, DEVICE.password], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });

  child = spawn(process.execPath, [svc, 'controller', 'run', '--config', join(home, 'config.yml')], { env, stdio: 'ignore' });
  await waitFor(versionUrl, ca, process.hrtime.bigint(), child);
  const management = `${origin}/edge/management/v1`;
  const admin = { 'svc-session': JSON.parse((await post(`${management}/authenticate?method=password`, ca, { username: 'admin', password: 'bench-password' })).text).data.token };
  const create = async (path, body) => {
    const res = await post(`${management}${path}`, ca, body, { headers: admin });
    if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${res.text}`);
    return JSON.parse(res.text).data.id;
  };
  const services = [];
  for (let index = 0; index < serviceCount; index++) services.push(await create('/services', { name: `flood-${index}` }));
  await create('/edge-routers', { name: 'flood-router', roleAttributes: ['flood'] });
  await create('/service-policies', { name: 'flood-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#all'], serviceRoles: ['#all'] });
  await create('/edge-router-policies', { name: 'flood-routers', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#flood'] });
  await create('/service-edge-router-policies', { name: 'flood-serp', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#flood'] });
  const csr = csrPem();
  await stop(child);
  const before = { bytes: storeBytes(), rows: rowCounts() };

  child = spawn(process.execPath, [svc, 'controller', 'run', '--config', join(home, 'config.yml')], { env, stdio: 'ignore' });
  await waitFor(versionUrl, ca, process.hrtime.bigint(), child);
  const client = `${origin}/edge/client/v1`;
  const answers = {};
  const count = (what, status) => (answers[`${what} ${status}`] = (answers[`${what} ${status}`] ?? 0) + 1);
  const deadline = Date.now() + seconds * 1000;
  const login = async (agent) => {
    const res = await send(agent, `${client}/authenticate?method=password`, 'POST', {}, DEVICE);
    count('login', res.status);
    return res.status === 200 ? { 'svc-session': res.json.data.token } : undefined;
  };
  // Half the clients open sessions (a new login once every service has one), half ask for certificates on one login.
  const sessionFlood = async (agent) => {
    while (Date.now() < deadline) {
      const headers = await login(agent);
      for (let index = 0; headers && index < services.length && Date.now() < deadline; index++) {
        count('POST /sessions (1 MiB tags)', (await send(agent, `${client}/sessions`, 'POST', headers, { serviceId: services[index], tags: TAGS })).status);
      }
    }
  };
  const certificateFlood = async (agent) => {
    const headers = await login(agent);
    while (headers && Date.now() < deadline) count('POST /current-api-session/certificates', (await send(agent, `${client}/current-api-session/certificates`, 'POST', headers, { csr })).status);
  };
  await Promise.all(
    Array.from({ length: connections }, async (_, index) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1, ca });
      await (index % 2 === 0 ? sessionFlood(agent) : certificateFlood(agent));
      agent.destroy();
    }),
  );
  await stop(child);
  const after = { bytes: storeBytes(), rows: rowCounts() };

  const row = (name, value) => console.log(`${name.padEnd(52)} ${value}`);
  row('flood', `${seconds} s, ${connections} clients, ${serviceCount} services, one device identity`);
  for (const [what, n] of Object.entries(answers).sort()) row(`  ${what}`, n);
  row('store before / after (SQLite file + WAL)', `${(before.bytes / 2 ** 20).toFixed(1)} MiB / ${(after.bytes / 2 ** 20).toFixed(1)} MiB`);
  row('store growth', `${((after.bytes - before.bytes) / 2 ** 20).toFixed(1)} MiB (${after.bytes - before.bytes} bytes)`);
  for (const table of CLIENT_TABLES) row(`  rows in ${table}`, `${before.rows[table]} -> ${after.rows[table]}`);
  row('build (dist/build-info.json)', JSON.parse(readFileSync(join(root, 'dist/build-info.json'), 'utf8')).revision);
} finally {
  if (child) await stop(child);
  rmSync(home, { recursive: true, force: true });
}
