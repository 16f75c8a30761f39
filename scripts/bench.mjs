#!/usr/bin/env node
// `npm run bench`: measures, in one run on this machine (needs `npm run build` first; `npm ci` does it):
//  1. first-run quickstart time (process start -> first answer of GET /edge/client/v1/version),
//  2. cold start of `svc controller run --config FILE` on the home quickstart made,
//  3. GET /edge/client/v1/version over HTTPS against a bare Fastify HTTPS route with the same certificate and
//     payload, in alternating rounds (medians; req/s and the server's CPU per request),
//  4. GET /edge/client/v1/current-identity with an svc-session token against the same bare route,
//  5. legacy password logins and complete OIDC PKCE logins per second against raw argon2id verifications per second
//     at the same parameters, after a warm-up, in rounds that each sit between two raw argon2id runs: a figure is
//     the median of the rounds' ratios to those runs (paired-ratio.mjs) (PKCE logins loaded by wrk when installed:
//     pkce-wrk.mjs), with where a login's CPU goes (the controller's main thread, its other threads, PostgreSQL,
//     the load generator: cpu-budget.mjs), and both logins on bare Fastify with argon2id and nothing else
//     (bare-logins.mjs, with wrk): what this machine allows them, and with only the work no controller can leave out
//     (mandated-logins.mjs: for PKCE seals, two signatures, one store write; for a password login a token and one
//     store write): what any controller pays; and each round of svc's logins over the mandated-work logins of the
//     same round, where the host's drift cancels out (decision 0050),
//  6. OIDC refresh grants per second (wrk, rounds alternating with the bare route: refresh-wrk.mjs), their
//     controller CPU per grant, and the same grants with only the mandated work (mandated-logins.mjs) in the same
//     rounds; GET /current-api-session with svc-session and with a
//     Bearer token, GET /current-api-session/service-updates, and GET /current-identity with a Bearer token,
//  7. validation time of a router configuration file with 1,000 listeners and 1,000 dialers,
//  8. the cost of answering a TOTP factor against the bare RFC 6238 check; a request carrying a secondary external
//     JWT (step 6, last) against the same request without one,
//  9. revocation propagation between two controllers on the store: logout at A to refusal at B (p50, p99).
// Options: --seconds N (per load run, default 5), --connections N (default 10), --rounds N (default 5),
//          --store sqlite|postgres (default sqlite; postgres: a throwaway cluster, or SVC_BENCH_POSTGRES_URL; the
//          first-run quickstart is always the embedded default, the rest runs on the chosen store).
// Separate suites: `npm run bench -- authz [options]` (the policy engine at size; scripts/bench/authz.mjs);
// `npm run bench -- client-flood [options]` (store growth under one device's flood; scripts/bench/client-flood.mjs);
// `npm run bench -- console [options]` (the web console in Chromium at a million identities; scripts/bench/console.mjs);
// `npm run bench -- change-preview [options]` (POST /change-previews at a million identities; scripts/bench/change-preview.mjs);
// `npm run bench -- router-fleet [options]` (many routers on one controller: CPU, RSS, revocations, restart);
// `npm run bench -- edge-relay [options]` (traffic through one router: throughput against a bare TLS relay, dial
// setup, memory per idle SDK channel; scripts/bench/edge-relay.mjs);
// `npm run bench -- fabric [options]` (three routers joined by links: throughput over a link against a bare two-hop
// TLS relay, HTTP through a proxy-mode and a host-mode tunnel, failover after a router's kill; scripts/bench/fabric.mjs).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, generatorName, load, measured, median, moveToPostgres, post, readWhenWritten, rssMiB, stop, waitFor, wrk } from './bench/lib.mjs';
import { pkceLoginsWithWrk } from './bench/pkce-wrk.mjs';
import { describeBudget, medianCpu, processCpuMs, withCpuPerUnit } from './bench/cpu-budget.mjs';
import { describeAgainst, describeRatio } from './bench/paired-ratio.mjs';
import { refreshGrantsWithWrk } from './bench/refresh-wrk.mjs';
import { requireSecondaryJwt } from './bench/secondary-jwt.mjs';

const root = new URL('..', import.meta.url).pathname;

// `npm run bench -- <suite> [options]` runs one of the separate suites instead of the default one.
const SUITES = { authz: 'scripts/bench/authz.mjs', 'client-flood': 'scripts/bench/client-flood.mjs', 'router-fleet': 'scripts/bench/router-fleet.mjs', console: 'scripts/bench/console.mjs', 'change-preview': 'scripts/bench/change-preview.mjs', 'edge-relay': 'scripts/bench/edge-relay.mjs', fabric: 'scripts/bench/fabric.mjs' };
if (process.argv[2] in SUITES) {
  const run = spawnSync(process.execPath, [join(root, SUITES[process.argv[2]]), ...process.argv.slice(3)], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
    store: { type: 'string', default: 'sqlite' },
  },
});
const loadOptions = { connections: Number(values.connections), seconds: Number(values.seconds) };
const rounds = Number(values.rounds);
/** Seconds of each login flow run before the login rounds (see step 5). */
const LOGIN_WARM_UP_S = 10;
if (!['sqlite', 'postgres'].includes(values.store)) throw new Error('--store is sqlite or postgres');
let cluster;
let storeUrl;

const home = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const svc = join(root, 'bin/svc.js');
const env = { ...process.env, SVC_LOG_LEVEL: 'warn', SVC_ADMIN_PASSWORD: 'bench-password' };
const rows = [];
const row = (name, value) => rows.push(`${name.padEnd(60)} ${value}`);

/** Runs a bench script of ours in a process of its own and resolves what it prints. */
function outputOf(args) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (c) => (out += c));
    p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args[0]} exited ${code}`))));
  });
}
const jsonOf = async (args) => JSON.parse(await outputOf(args));
/** Resolves {child, port} once a baseline server of ours prints "ready <port>". */
const baselineServer = (child) => new Promise((resolve) => child.stdout.on('data', (c) => resolve({ child, port: Number(/ready (\d+)/.exec(String(c))[1]) })));

/** Alternates load rounds on svc and the baseline; reports medians of req/s and CPU per request. */
async function compare(label, svcTarget, bareTarget) {
  const svcRuns = [];
  const bareRuns = [];
  for (let round = 0; round < rounds; round++) {
    svcRuns.push(await measured(svcTarget.url, svcTarget.ca, svcTarget.pid, { ...loadOptions, ...svcTarget.options, scratch: home }));
    bareRuns.push(await measured(bareTarget.url, bareTarget.ca, bareTarget.pid, { ...loadOptions, scratch: home }));
  }
  const svcRps = median(svcRuns.map((r) => r.rps));
  const bareRps = median(bareRuns.map((r) => r.rps));
  const svcCpu = median(svcRuns.map((r) => r.cpuUs));
  const bareCpu = median(bareRuns.map((r) => r.cpuUs));
  const errors = [...svcRuns, ...bareRuns].reduce((n, r) => n + r.errors, 0);
  row(`${label}: svc / bare Fastify, median req/s`, `${svcRps.toFixed(0)} / ${bareRps.toFixed(0)} = ${(svcRps / bareRps).toFixed(2)}`);
  row(`${label}: per-round ratios`, svcRuns.map((r, i) => (r.rps / bareRuns[i].rps).toFixed(2)).join(', '));
  row(`${label}: server CPU per request, svc / bare`, `${svcCpu.toFixed(0)} µs / ${bareCpu.toFixed(0)} µs = ${(svcCpu / bareCpu).toFixed(2)}x`);
  if (errors > 0) row(`${label}: non-2xx responses`, String(errors));
}

try {
  const port = await freePort();
  const origin = `https://127.0.0.1:${port}`;
  const versionUrl = `${origin}/edge/client/v1/version`;

  // 1. First-run quickstart: PKI, config, database, admin (argon2id hash), then listening.
  let started = process.hrtime.bigint();
  let child = spawn(process.execPath, [svc, 'quickstart', '--home', home, '--port', String(port)], { env, stdio: 'ignore' });
  const ca = await readWhenWritten(join(home, 'pki/ca-bundle.pem'));
  const quickstart = await waitFor(versionUrl, ca, started, child);
  await stop(child);
  row('first-run quickstart to first answer', `${quickstart.ms.toFixed(0)} ms`);
  row('store for the steps below', values.store);
  if (values.store === 'postgres') ({ cluster, url: storeUrl } = await moveToPostgres(home, svc, env, 'bench-password'));

  // 2. Cold start from the config file quickstart wrote.
  started = process.hrtime.bigint();
  child = spawn(process.execPath, [svc, 'controller', 'run', '--config', join(home, 'config.yml')], { env, stdio: 'ignore' });
  const cold = await waitFor(versionUrl, ca, started, child);
  row('cold start `svc controller run` to first answer', `${cold.ms.toFixed(0)} ms`);

  // The baseline: bare Fastify with the same certificate, answering the version document.
  const payloadFile = join(home, 'payload.json');
  writeFileSync(payloadFile, cold.text);
  const { child: bare, port: barePort } = await baselineServer(spawn(process.execPath, [join(root, 'scripts/bench/bare-fastify.mjs'), join(home, 'pki/server.chain.pem'), join(home, 'pki/server.key.pem'), payloadFile], { stdio: ['ignore', 'pipe', 'inherit'] }));
  const bareTarget = { url: `https://127.0.0.1:${barePort}/version`, ca, pid: bare.pid };

  // 3. An anonymous informational route.
  await compare('GET /version', { url: versionUrl, ca, pid: child.pid }, bareTarget);

  // 4. An authenticated route: session lookup, identity load, activity bookkeeping.
  const login = await post(`${origin}/edge/client/v1/authenticate?method=password`, ca, { username: 'admin', password: 'bench-password' });
  const token = JSON.parse(login.text).data.token;
  await compare('GET /current-identity (svc-session)', { url: `${origin}/edge/client/v1/current-identity`, ca, pid: child.pid, options: { headers: { 'svc-session': token } } }, bareTarget);

  // 5, 6. Password logins and complete OIDC PKCE logins (authorize, login, callback, code exchange) against the raw
  // argon2id rate at the same parameters, in alternating rounds: the difference is our overhead per login.
  const loginRuns = [];
  const pkceRuns = [];
  const argonRuns = [];
  /** The arguments of oidc-flows.mjs doing `what` at `target` (svc unless said). */
  const oidcArgs = (what, seconds = values.seconds, target = origin) => [join(root, 'scripts/bench/oidc-flows.mjs'), target, ca, values.connections, String(seconds), 'admin', 'bench-password', what];
  /** PKCE flows walked by wrk against `target` (svc, or the bare flow below). */
  const wrkPkceFlows = (target, seconds) => pkceLoginsWithWrk(wrk, target, { flows: Number(values.connections), seconds, username: 'admin', password: 'bench-password', scratch: home });
  const pkceLogins = (seconds = loadOptions.seconds) => (wrk ? wrkPkceFlows(origin, seconds) : jsonOf(oidcArgs('logins', seconds)));
  /** Legacy password logins at `target` (svc, or a baseline below: they answer the same route). */
  const passwordLoginsAt = (target, seconds) =>
    load(`${target}/edge/client/v1/authenticate?method=password`, ca, { ...loadOptions, seconds, method: 'POST', body: JSON.stringify({ username: 'admin', password: 'bench-password' }), scratch: home });
  const passwordLogins = (seconds) => passwordLoginsAt(origin, seconds);
  // Logins come at ~150/s, not the thousands of requests/s of the routes above, so their code takes seconds to be
  // optimized by V8 (its compiler threads then compete with argon2id): both flows run unmeasured first, so the rounds
  // measure a controller that has been logging people in for a while, as a running one has.
  await passwordLogins(LOGIN_WARM_UP_S);
  await pkceLogins(LOGIN_WARM_UP_S);
  /** Where a baseline server (below) answers. */
  const originOf = (server) => `https://127.0.0.1:${server.port}`;
  // The logins' own baselines (with wrk): the same requests on bare Fastify, argon2id at the login and nothing else
  // (bare-logins.mjs), so the figures can be read against what this machine allows them.
  const bareLogins = wrk ? await baselineServer(spawn(process.execPath, [join(root, 'scripts/bench/bare-logins.mjs'), join(home, 'pki/server.chain.pem'), join(home, 'pki/server.key.pem')], { stdio: ['ignore', 'pipe', 'inherit'] })) : undefined;
  const barePkceLogins = (seconds = loadOptions.seconds) => wrkPkceFlows(originOf(bareLogins), seconds);
  if (bareLogins) await barePkceLogins(LOGIN_WARM_UP_S / 2);
  const barePkceRuns = [];
  const barePasswordRuns = [];
  // And with only the work no controller can leave out (mandated-logins.mjs: seals, two signatures, one store write on
  // the same kind of store; a password login's token and its store write), so the figures can be read against what
  // any controller would pay here (decisions 0047, 0049).
  const mandatedStore = storeUrl ?? join(home, 'mandated.sqlite');
  const mandatedLogins = wrk
    ? await baselineServer(spawn(process.execPath, [join(root, 'scripts/bench/mandated-logins.mjs'), join(home, 'pki/server.chain.pem'), join(home, 'pki/server.key.pem'), mandatedStore], { stdio: ['ignore', 'pipe', 'inherit'] }))
    : undefined;
  const mandatedPkceLogins = (seconds = loadOptions.seconds) => wrkPkceFlows(originOf(mandatedLogins), seconds);
  if (mandatedLogins) await mandatedPkceLogins(LOGIN_WARM_UP_S / 2);
  const mandatedPkceRuns = [];
  const mandatedPasswordRuns = [];
  /** A password login run at a baseline server, its CPU read as the controller's (and PostgreSQL's, when it has a store). */
  const baselinePasswordRun = (server, postgresPid) =>
    withCpuPerUnit({ controllerPid: server.child.pid, postgresPid }, async () => {
      const r = await passwordLoginsAt(originOf(server), loadOptions.seconds);
      return { ...r, units: r.requests };
    });
  // The baselines' password route is warmed up as svc's was above (their PKCE flows were, before).
  for (const server of [bareLogins, mandatedLogins]) if (server) await passwordLoginsAt(originOf(server), LOGIN_WARM_UP_S / 2);
  // Each run also reads where its CPU went (cpu-budget.mjs); the raw argon2id process is this script's child, so its
  // CPU per verify is read as the load generator's.
  const targets = { controllerPid: child.pid, postgresPid: cluster?.pid };
  // Every round sits between two raw argon2id runs, and its ratios are taken against their mean (paired-ratio.mjs).
  const argonRun = () => withCpuPerUnit(targets, async () => { const r = await jsonOf([join(root, 'scripts/bench/argon2-rate.mjs'), values.connections, values.seconds]); return { ...r, units: r.verifies }; });
  argonRuns.push(await argonRun());
  for (let round = 0; round < rounds; round++) {
    loginRuns.push(await withCpuPerUnit(targets, async () => { const r = await passwordLogins(loadOptions.seconds); return { ...r, units: r.requests }; }));
    pkceRuns.push(await withCpuPerUnit(targets, () => pkceLogins()));
    if (bareLogins) barePkceRuns.push(await withCpuPerUnit({ controllerPid: bareLogins.child.pid }, () => barePkceLogins()));
    if (mandatedLogins) mandatedPkceRuns.push(await withCpuPerUnit({ controllerPid: mandatedLogins.child.pid, postgresPid: cluster?.pid }, () => mandatedPkceLogins()));
    if (bareLogins) barePasswordRuns.push(await baselinePasswordRun(bareLogins));
    if (mandatedLogins) mandatedPasswordRuns.push(await baselinePasswordRun(mandatedLogins, cluster?.pid));
    argonRuns.push(await argonRun());
  }
  if (bareLogins) await stop(bareLogins.child);
  const raw = argonRuns.map((r) => r.rps);
  row('password logins/s / raw argon2id verify/s (same params), by round', describeRatio(loginRuns.map((r) => r.rps), raw));
  row(`OIDC PKCE logins/s (${wrk ? 'wrk' : 'node client'}) / raw argon2id verify/s, by round`, describeRatio(pkceRuns.map((r) => r.logins), raw));
  row('logins per round: password, PKCE; raw argon2id around the rounds', `${loginRuns.map((r, i) => `${r.rps.toFixed(0)}/${pkceRuns[i].logins.toFixed(0)}`).join(', ')}; ${raw.map((r) => r.toFixed(0)).join(', ')}`);
  const argonMs = median(argonRuns.map((r) => r.cpu.generator));
  row('raw argon2id CPU per verify (baseline process)', `${argonMs.toFixed(2)} ms`);
  row('CPU per password login (ms)', describeBudget(medianCpu(loginRuns.map((r) => r.cpu), median), argonMs));
  row('CPU per PKCE login (ms)', describeBudget(medianCpu(pkceRuns.map((r) => r.cpu), median), argonMs));
  /** A baseline's two rows: its ratio to the raw rate by round, and where its CPU went. */
  const baselineRows = (ratioLabel, cpuLabel, runs, rateOf) => {
    row(`${ratioLabel} / raw argon2id, by round`, describeRatio(runs.map(rateOf), raw));
    row(`CPU per ${cpuLabel} (ms)`, describeBudget(medianCpu(runs.map((r) => r.cpu), median), argonMs));
  };
  if (bareLogins) baselineRows('PKCE flow on bare Fastify (argon2id only)', 'bare PKCE flow', barePkceRuns, (r) => r.logins);
  if (mandatedLogins) baselineRows('PKCE flow with only the mandated work', 'mandated-work PKCE flow', mandatedPkceRuns, (r) => r.logins);
  if (bareLogins) baselineRows('password login on bare Fastify (argon2id only)', 'bare password login', barePasswordRuns, (r) => r.rps);
  if (mandatedLogins) baselineRows('password login with only the mandated work', 'mandated-work password login', mandatedPasswordRuns, (r) => r.rps);
  // svc's own work, read without the host's drift: each round of svc against the mandated-work login of that round.
  if (mandatedLogins) {
    row('svc PKCE logins / the mandated-work PKCE flow, same round', describeAgainst(pkceRuns.map((r) => r.logins), mandatedPkceRuns.map((r) => r.logins)));
    row('svc password logins / the mandated-work password login, same round', describeAgainst(loginRuns.map((r) => r.rps), mandatedPasswordRuns.map((r) => r.rps)));
  }
  const failed =
    [...loginRuns, ...barePasswordRuns, ...mandatedPasswordRuns].reduce((n, r) => n + r.errors, 0) + [...pkceRuns, ...barePkceRuns, ...mandatedPkceRuns].reduce((n, r) => n + (r.failures ?? 0), 0);
  if (failed > 0) row('logins refused or broken off (should be 0)', String(failed));
  // OIDC refresh grants per second, then the access token as an API credential.
  // With wrk, in rounds alternating with the bare route (decision 0050): issue 17 asks for 0.1 of its req/s. Each round
  // starts from refresh tokens of its own, one per connection.
  // The same grants with only the mandated work (mandated-logins.mjs: the lookup, the rotation with its successor in
  // one transaction, two signatures), in the same rounds.
  let oidc;
  if (wrk) {
    /** A round of refresh grants at `target` from fresh tokens (logged in there first), with the server's CPU per grant. */
    const grantRun = async (target, pid) => {
      const { refreshTokens } = await jsonOf(oidcArgs('seeds', values.seconds, target));
      const before = processCpuMs(pid);
      const run = await refreshGrantsWithWrk(wrk, target, { tokens: refreshTokens, seconds: loadOptions.seconds, scratch: home });
      return { ...run, cpuUs: ((processCpuMs(pid) - before) * 1000) / Math.max(1, run.units) };
    };
    const grantRuns = [];
    const mandatedGrantRuns = [];
    const bareRuns = [];
    // Both warmed up first, unmeasured.
    await grantRun(origin, child.pid);
    if (mandatedLogins) await grantRun(originOf(mandatedLogins), mandatedLogins.child.pid);
    for (let round = 0; round < rounds; round++) {
      grantRuns.push(await grantRun(origin, child.pid));
      if (mandatedLogins) mandatedGrantRuns.push(await grantRun(originOf(mandatedLogins), mandatedLogins.child.pid));
      bareRuns.push(await measured(bareTarget.url, bareTarget.ca, bareTarget.pid, { ...loadOptions, scratch: home }));
    }
    const bareRps = median(bareRuns.map((r) => r.rps));
    /** A row of grants against the bare route: medians, then each round against the bare route of its round. */
    const grantRow = (label, runs) => {
      const grants = median(runs.map((r) => r.grants));
      row(label, `${grants.toFixed(0)} / ${bareRps.toFixed(0)} = ${(grants / bareRps).toFixed(3)} (rounds ${runs.map((r, i) => (r.grants / bareRuns[i].rps).toFixed(3)).join(' ')})`);
    };
    grantRow('OIDC refresh grants/s (rotating, wrk) / bare route req/s', grantRuns);
    row('OIDC refresh grant: controller CPU per grant', `${median(grantRuns.map((r) => r.cpuUs)).toFixed(0)} µs`);
    if (mandatedLogins) {
      grantRow('refresh grants with only the mandated work / bare route req/s', mandatedGrantRuns);
      row('refresh grant with only the mandated work: CPU per grant', `${median(mandatedGrantRuns.map((r) => r.cpuUs)).toFixed(0)} µs`);
      row('svc refresh grants / mandated-work grants, same round', describeAgainst(grantRuns.map((r) => r.grants), mandatedGrantRuns.map((r) => r.grants)));
    }
    oidc = await jsonOf(oidcArgs('seeds'));
    const refused = [...grantRuns, ...mandatedGrantRuns].reduce((n, r) => n + r.failures, 0);
    if (refused > 0) row('refresh grants refused (should be 0)', String(refused));
  } else {
    oidc = await jsonOf(oidcArgs('refreshes'));
    row('OIDC refresh grants/s (rotating, node client)', oidc.refreshes.toFixed(0));
  }
  if (mandatedLogins) await stop(mandatedLogins.child);
  // The cheapest authenticated route isolates what checking the credential costs (session lookup vs cached JWT).
  await compare('GET /current-api-session (svc-session)', { url: `${origin}/edge/client/v1/current-api-session`, ca, pid: child.pid, options: { headers: { 'svc-session': token } } }, bareTarget);
  // What every SDK polls (issue 15): answered from memory on a store of its own; on a shared store each poll reads the
  // change log, so controllers agree (decision 0032).
  await compare('GET /current-api-session/service-updates (svc-session)', { url: `${origin}/edge/client/v1/current-api-session/service-updates`, ca, pid: child.pid, options: { headers: { 'svc-session': token } } }, bareTarget);
  await compare('GET /current-api-session (Bearer access token)', { url: `${origin}/edge/client/v1/current-api-session`, ca, pid: child.pid, options: { headers: { authorization: `Bearer ${oidc.accessToken}` } } }, bareTarget);
  await compare('GET /current-identity (Bearer access token)', { url: `${origin}/edge/client/v1/current-identity`, ca, pid: child.pid, options: { headers: { authorization: `Bearer ${oidc.accessToken}` } } }, bareTarget);
  // The secondary external JWT (issue 6): the same session request, now verifying a JWT on every call. Last, because
  // from here on the admin needs that JWT on every request.
  // 9. Revocation propagation: a second controller on the same store and PKI, another port (before step 8's last
  // part, which makes the admin's sessions need a secondary JWT).
  const portB = await freePort();
  const configB = join(home, 'config-b.yml');
  writeFileSync(configB, readFileSync(join(home, 'config.yml'), 'utf8').replaceAll(`127.0.0.1:${port}`, `127.0.0.1:${portB}`));
  const childB = spawn(process.execPath, [svc, 'controller', 'run', '--config', configB], { env, stdio: 'ignore' });
  const originB = `https://127.0.0.1:${portB}`;
  await waitFor(`${originB}/edge/client/v1/version`, ca, process.hrtime.bigint(), childB);
  const spread = await jsonOf([join(root, 'scripts/bench/propagation.mjs'), origin, originB, ca, '50', 'admin', 'bench-password']);
  await stop(childB);
  row(`logout at A to refusal at B (two controllers), ${spread.samples} samples`, `p50 ${spread.p50.toFixed(1)} ms, p99 ${spread.p99.toFixed(1)} ms, max ${spread.max.toFixed(1)} ms`);
  const secondaryJwt = await requireSecondaryJwt(origin, ca, token);
  await compare('GET /current-identity (svc-session + secondary ext JWT)', { url: `${origin}/edge/client/v1/current-identity`, ca, pid: child.pid, options: { headers: { 'svc-session': token, authorization: `Bearer ${secondaryJwt}` } } }, bareTarget);
  row('controller RSS after the load runs', `${rssMiB(child.pid).toFixed(0)} MiB`);
  await stop(child);
  await stop(bare);

  // 7. Router configuration validation of a large file (pure CPU, no server).
  rows.push((await outputOf([join(root, 'scripts/bench/router-validate.mjs')])).trim());
  // 8. The cost of answering a TOTP factor (in process, real SQLite store).
  rows.push((await outputOf([join(root, 'scripts/bench/totp-check.mjs')])).trim());

  console.log(`\nsvc bench — node ${process.version}, ${generatorName}, ${values.connections} keep-alive connections, ${values.seconds}s per load run, ${rounds} alternating rounds\n`);
  for (const line of rows) console.log(line);
} finally {
  await cluster?.stop();
  rmSync(home, { recursive: true, force: true });
}
