#!/usr/bin/env node
// `npm run bench -- console` (issue 45; needs `npm run build`): the web console in Debian's Chromium against a
// controller holding the authorization bench's network (a million identities by default, seeded straight into the
// store by authz-seed.ts), on loopback.
//  1. First load: what the browser transfers for /console/ with an empty cache (every response, headers and body as
//     sent, compressed where the browser asked) and the time from navigation to the sign-in button (the console
//     rendered and interactive), median of --rounds fresh contexts.
//  2. The identities list after signing in: time from navigation to the first rows drawn, for the first page, a
//     name search and a descending sort, median of --rounds; next to it the same API request made directly (node
//     https, kept-alive), so the browser's share is visible; and the bare Fastify GET /version in the same run.
//  3. Every API request the console made: none without a `limit`, none above 100 (a whole collection is never
//     fetched), printed with the largest limit seen.
// Options: --identities N (1000000), --services N (10000), --routers N (1000), --service-policies N (2000),
//          --router-policies N (100), --rounds N (5), --store sqlite|postgres (sqlite).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { median, post, seededHome, seededNetworkArguments, stop, waitFor } from './lib.mjs';

const root = new URL('../..', import.meta.url).pathname;
const { values, rounds, sizes } = seededNetworkArguments(5);
const home = mkdtempSync(join(tmpdir(), 'svc-bench-console-'));
const svc = join(root, 'bin/svc.js');
const env = { ...process.env, SVC_LOG_LEVEL: 'warn', SVC_ADMIN_PASSWORD: 'bench-password' };
const rows = [];
const row = (name, value) => rows.push(`${name.padEnd(66)} ${value}`);
const ms = (x) => `${x.toFixed(0)} ms`;

/** Median milliseconds of `times` GETs of `url` over one kept-alive connection. */
async function direct(url, ca, headers, times) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca });
  const results = [];
  for (let i = 0; i < times + 1; i++) {
    const started = process.hrtime.bigint();
    await new Promise((resolve, reject) => request(url, { agent, headers }, (res) => (res.resume(), res.on('end', resolve))).on('error', reject).end());
    if (i > 0) results.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  agent.destroy();
  return median(results);
}

/** The console's filter for the start of a name (console/src/components/list-screen.tsx filterFor). */
const prefixFilter = (text) => `(name >= "${text}" and name < "${text.slice(0, -1)}${String.fromCharCode(text.charCodeAt(text.length - 1) + 1)}")`;

const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

let cluster;
let controller;
let bare;
let browser;
try {
  const seededAt = await seededHome({ root, home, svc, env, store: values.store, sizes, password: 'bench-password' });
  const { origin, ca, seeded } = seededAt;
  cluster = seededAt.cluster;
  const versionUrl = `${origin}/edge/client/v1/version`;
  row('store', values.store);
  row('network', `${sizes.identities} identities, ${sizes.services} services, ${sizes.routers} routers, ${sizes.servicePolicies} service policies`);
  row('seeding (write)', `${(seeded.seedMs / 1000).toFixed(1)} s`);

  controller = spawn(process.execPath, [svc, 'controller', 'run', '--config', join(home, 'config.yml')], { env, stdio: 'ignore' });
  await waitFor(versionUrl, ca, process.hrtime.bigint(), controller);
  const login = await post(`${origin}/edge/management/v1/authenticate?method=password`, ca, { username: 'admin', password: 'bench-password' });
  const headers = { 'svc-session': JSON.parse(login.text).data.token };

  // The same-run baseline: bare Fastify answering GET /version with the controller's certificate.
  const payloadFile = join(home, 'payload.json');
  writeFileSync(payloadFile, JSON.stringify({ data: { version: 'bench' }, meta: {} }));
  bare = spawn(process.execPath, [join(root, 'scripts/bench/bare-fastify.mjs'), join(home, 'pki/server.chain.pem'), join(home, 'pki/server.key.pem'), payloadFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const barePort = await new Promise((resolve) => bare.stdout.on('data', (c) => resolve(Number(/ready (\d+)/.exec(String(c))[1]))));

  browser = await chromium.launch({ executablePath: process.env.SVC_CHROMIUM ?? '/usr/bin/chromium', headless: true, args: FLAGS });

  // 1. First load, empty cache each round.
  const loads = [];
  const transferred = [];
  for (let i = 0; i < rounds; i++) {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const finished = [];
    page.on('requestfinished', (req) => finished.push(req.sizes().then((s) => s.responseHeadersSize + s.responseBodySize)));
    const started = performance.now();
    await page.goto(`${origin}/console/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    loads.push(performance.now() - started);
    transferred.push((await Promise.all(finished)).reduce((a, b) => a + b, 0));
    await context.close();
  }
  row('first load /console/: bytes transferred (empty cache)', `${median(transferred)} B`);
  row('first load /console/: navigation to interactive (sign-in shown), median', ms(median(loads)));

  // 2. Signed in: the identities list.
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  const apiRequests = [];
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.pathname.startsWith('/edge/management/v1/') && req.method() === 'GET') apiRequests.push(url);
  });
  await page.goto(`${origin}/console/`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('input[name=username]').fill('admin');
  await page.locator('input[name=password]').fill('bench-password');
  await page.locator('form button[type=submit]').click();
  await page.waitForURL('**/console/identities');
  await page.locator('tbody tr td a').first().waitFor();
  const firstRows = async (path) => {
    const times = [];
    for (let i = 0; i < rounds; i++) {
      const started = performance.now();
      await page.goto(`${origin}${path}`);
      await page.locator('tbody tr td a').first().waitFor();
      times.push(performance.now() - started);
    }
    return median(times);
  };
  // A name in the seeded network (authz-network.ts names identities PREFIX-identity-NNNNNNN), and a deep page.
  const someName = `b-identity-${String(Math.floor(sizes.identities / 2)).padStart(7, '0')}`;
  const deep = Math.max(0, Math.min(24_975, Math.floor(sizes.identities / 25 / 2) * 25));
  const screens = [
    ['identities list, first page (sort name asc)', '/console/identities', '/edge/management/v1/identities?sort=name+asc&limit=25&offset=0'],
    ['identities list, sorted name desc', '/console/identities?sort=name+desc', '/edge/management/v1/identities?sort=name+desc&limit=25&offset=0'],
    ['identities list, search by the start of a name (indexed range)', `/console/identities?q=${someName}`, `/edge/management/v1/identities?filter=${encodeURIComponent(prefixFilter(someName))}&sort=name+asc&limit=25&offset=0`],
    ['identities list, search anywhere in names (*text: contains)', `/console/identities?q=*${someName}`, `/edge/management/v1/identities?filter=${encodeURIComponent(`name contains "${someName}"`)}&sort=name+asc&limit=25&offset=0`],
    [`identities list, page ${deep / 25 + 1}`, `/console/identities?offset=${deep}`, `/edge/management/v1/identities?sort=name+asc&limit=25&offset=${deep}`],
  ];
  for (const [name, path, apiPath] of screens) {
    const console_ = await firstRows(path);
    const api = apiPath ? await direct(`${origin}${apiPath}`, ca, headers, rounds) : undefined;
    row(`${name}: navigation to first rows, median`, `${ms(console_)}${api === undefined ? '' : ` (the API request alone: ${ms(api)})`}`);
  }
  const bareMs = await direct(`https://127.0.0.1:${barePort}/version`, ca, {}, rounds * 4);
  row('bare Fastify GET /version, same connection kind (baseline)', `${bareMs.toFixed(2)} ms`);

  // 3. No request fetched a whole collection.
  // A list is a path ending in a collection's name (lower-case words and dashes); an entity's ends in its id, and
  // /current-identity (who is signed in) is one entity.
  const lists = apiRequests.filter((url) => /\/[a-z-]+$/.test(url.pathname) && !url.pathname.endsWith('/current-identity'));
  const limits = lists.map((url) => Number(url.searchParams.get('limit') ?? Infinity));
  row('API list requests the console made / without a limit / largest limit', `${lists.length} / ${limits.filter((l) => !Number.isFinite(l)).length} / ${Math.max(...limits)}`);
} finally {
  await browser?.close();
  if (bare) bare.kill();
  if (controller) await stop(controller);
  cluster?.stop();
  rmSync(home, { recursive: true, force: true });
}
console.log(rows.join('\n'));
