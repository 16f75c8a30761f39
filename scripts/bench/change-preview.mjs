#!/usr/bin/env node
// `npm run bench -- change-preview` (issue 45, decision 0082; needs `npm run build`): `POST /change-previews` against
// a controller holding the authorization bench's network (a million identities by default, seeded straight into the
// store by authz-seed.ts, as the console bench does), on loopback over one kept-alive HTTPS connection.
//  1. Policy previews: a new service policy on one attribute of each side, a new policy on `#all` identities (the
//     pair budget bounds it), and an edit of a seeded policy's identity roles.
//  2. Role attribute previews: an identity's, a service's and an edge router's new attributes; a posture check's
//     create on the identities' current posture data.
//  Each: the median time of --rounds requests, with the counts the answer gave (`+` marks a lower bound).
//  3. The bare Fastify GET /version over the same kind of connection in the same run (the baseline).
// Options: --identities N (1000000), --services N (10000), --routers N (1000), --service-policies N (2000),
//          --router-policies N (100), --rounds N (7), --store sqlite|postgres (sqlite).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, post, seededHome, seededNetworkArguments, stop, waitFor } from './lib.mjs';

const root = new URL('../..', import.meta.url).pathname;
const { values, rounds, sizes } = seededNetworkArguments(7);
const home = mkdtempSync(join(tmpdir(), 'svc-bench-preview-'));
const svc = join(root, 'bin/svc.js');
const env = { ...process.env, SVC_LOG_LEVEL: 'warn', SVC_ADMIN_PASSWORD: 'bench-password' };
const rows = [];
const row = (name, value) => rows.push(`${name.padEnd(72)} ${value}`);

/** Median milliseconds of `times` requests (after one warm-up) over one kept-alive connection, and the last answer. */
async function timed(url, ca, { method = 'GET', headers = {}, body } = {}, times) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca });
  const results = [];
  let last;
  for (let i = 0; i < times + 1; i++) {
    const started = process.hrtime.bigint();
    last = await new Promise((resolve, reject) => {
      const req = request(url, { agent, method, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers } }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode, text }));
      });
      req.on('error', reject);
      req.end(body ? JSON.stringify(body) : undefined);
    });
    if (i > 0) results.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  agent.destroy();
  return { ms: median(results), last };
}

const counted = (side) => `${side.count}${side.countIsLowerBound ? '+' : ''}`;

let cluster;
let controller;
let bare;
try {
  const seededAt = await seededHome({ root, home, svc, env, store: values.store, sizes, password: 'bench-password' });
  const { origin, ca, seeded } = seededAt;
  cluster = seededAt.cluster;
  row('store', values.store);
  row('network', `${sizes.identities} identities, ${sizes.services} services, ${sizes.routers} routers, ${sizes.servicePolicies} service policies`);
  row('seeding (write)', `${(seeded.seedMs / 1000).toFixed(1)} s`);

  controller = spawn(process.execPath, [svc, 'controller', 'run', '--config', join(home, 'config.yml')], { env, stdio: 'ignore' });
  await waitFor(`${origin}/edge/client/v1/version`, ca, process.hrtime.bigint(), controller);
  const login = await post(`${origin}/edge/management/v1/authenticate?method=password`, ca, { username: 'admin', password: 'bench-password' });
  const headers = { 'svc-session': JSON.parse(login.text).data.token };

  // Seeded names (test/helpers/authz-network.ts): ids PREFIX-KIND-N, attributes KIND-aN. The identity's and the
  // posture check's new attributes are ones a seeded policy names, so those previews find pairs to examine.
  const middle = (count) => Math.floor(count / 2);
  const identityAttribute = (seeded.policy?.role ?? '#identity-a1').replace(/^#/, '');
  const policies = JSON.parse((await post(`${origin}/edge/management/v1/service-policies?limit=500`, ca, undefined, { method: 'GET', headers })).text).data;
  const checkRole = policies.flatMap((policy) => policy.postureCheckRoles).find((role) => role.startsWith('#') && role !== '#all') ?? '#check-a1';
  const previews = [
    ['policy preview: new Dial policy, one attribute each side', { entity: 'service-policies', change: { type: 'Dial', semantic: 'AnyOf', identityRoles: ['#identity-a1'], serviceRoles: ['#service-a1'] } }],
    ['policy preview: new Dial policy on #all identities (budget-bound)', { entity: 'service-policies', change: { type: 'Dial', semantic: 'AnyOf', identityRoles: ['#all'], serviceRoles: ['#service-a2'] } }],
    ['policy preview: edit of a seeded policy’s identity roles', { entity: 'service-policies', id: 'b-sp-0', change: { identityRoles: ['#identity-a3'] } }],
    ['role attribute preview: an identity', { entity: 'identities', id: `b-identity-${middle(sizes.identities)}`, change: { roleAttributes: [identityAttribute] } }],
    ['role attribute preview: a service', { entity: 'services', id: `b-service-${middle(sizes.services)}`, change: { roleAttributes: ['service-a3'] } }],
    ['role attribute preview: an edge router (all attributes removed)', { entity: 'edge-routers', id: `b-router-${middle(sizes.routers)}`, change: { roleAttributes: [] } }],
    ['posture check preview: a new OS check on a seeded policy’s attribute', { entity: 'posture-checks', change: { name: 'bench-os', typeId: 'OS', roleAttributes: [checkRole.slice(1)], operatingSystems: [{ type: 'Windows' }] } }],
  ];
  for (const [name, body] of previews) {
    const { ms, last } = await timed(`${origin}/edge/management/v1/change-previews`, ca, { method: 'POST', headers, body }, rounds);
    if (last.status !== 200) throw new Error(`${name}: ${last.status} ${last.text}`);
    const { gains, losses } = JSON.parse(last.text).data;
    row(`${name}: median`, `${ms.toFixed(1)} ms (gains ${counted(gains)}, losses ${counted(losses)})`);
  }

  // The same-run baseline: bare Fastify answering GET /version with the controller's certificate.
  const payloadFile = join(home, 'payload.json');
  writeFileSync(payloadFile, JSON.stringify({ data: { version: 'bench' }, meta: {} }));
  bare = spawn(process.execPath, [join(root, 'scripts/bench/bare-fastify.mjs'), join(home, 'pki/server.chain.pem'), join(home, 'pki/server.key.pem'), payloadFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const barePort = await new Promise((resolve) => bare.stdout.on('data', (c) => resolve(Number(/ready (\d+)/.exec(String(c))[1]))));
  const baseline = await timed(`https://127.0.0.1:${barePort}/version`, ca, {}, rounds * 4);
  row('bare Fastify GET /version, same connection kind (baseline)', `${baseline.ms.toFixed(2)} ms`);
} finally {
  if (bare) bare.kill();
  if (controller) await stop(controller);
  cluster?.stop();
  rmSync(home, { recursive: true, force: true });
}
console.log(rows.join('\n'));
