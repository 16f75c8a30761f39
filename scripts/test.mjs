#!/usr/bin/env node
// `npm test`: runs the whole suite twice, on SQLite (in memory) and on PostgreSQL.
// PostgreSQL: SVC_TEST_POSTGRES_URL if set, else a throwaway cluster (initdb + pg_ctl as the `postgres` user,
// a free loopback port, a temporary data folder) stopped at the end. Without PostgreSQL binaries the
// PostgreSQL run is skipped with a loud notice, unless SVC_TEST_REQUIRE_POSTGRES=1 (CI), where it fails.
// Arguments are test files or folders to run instead of all of test/. A run of everything starts with the lint
// (eslint.config.js: recommended rules and the layer directions of STYLE.md) and the typecheck; either failing fails
// the run.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, chownSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const requirePostgres = process.env.SVC_TEST_REQUIRE_POSTGRES === '1';
const only = process.env.SVC_TEST_ONLY; // "sqlite" or "postgres": run one dialect (for quick local loops)

function testFiles(paths) {
  const out = [];
  const walk = (p) => {
    if (statSync(p).isDirectory()) for (const entry of readdirSync(p).sort()) walk(join(p, entry));
    else if (p.endsWith('.test.ts')) out.push(p);
  };
  for (const p of paths) walk(p);
  return out;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function findPostgresBin() {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(join(base, v, 'bin', 'initdb'))) return join(base, v, 'bin');
  return undefined;
}

function asPostgresUser(command) {
  const isRoot = process.getuid?.() === 0;
  const result = isRoot
    ? spawnSync('su', ['postgres', '-s', '/bin/sh', '-c', command], { encoding: 'utf8' })
    : spawnSync('/bin/sh', ['-c', command], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command}\n${result.stdout}${result.stderr}`);
}

async function startThrowawayCluster(bin) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  if (process.getuid?.() === 0) chownSync(dir, Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim()), 0);
  const port = await freePort();
  asPostgresUser(`${bin}/initdb -D ${dir}/data -A trust -U postgres --no-sync >/dev/null`);
  asPostgresUser(
    `${bin}/pg_ctl -D ${dir}/data -o "-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" -l ${dir}/pg.log -w start >/dev/null`,
  );
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        asPostgresUser(`${bin}/pg_ctl -D ${dir}/data -m fast -w stop >/dev/null`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

function runSuite(label, files, env) {
  const tap = join(mkdtempSync(join(tmpdir(), 'svc-tap-')), 'report.tap');
  console.log(`\n=== ${label} ===`);
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${tap}`, ...files],
      { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } },
    );
    child.on('exit', (code) => {
      const text = existsSync(tap) ? readFileSync(tap, 'utf8') : '';
      const count = (name) => Number(text.match(new RegExp(`^# ${name} (\\d+)$`, 'm'))?.[1] ?? 0);
      // A cancelled test (its file crashed or timed out) did not pass: it counts as a failure in the summary.
      resolve({ code: code ?? 1, passed: count('pass'), failed: count('fail') + count('cancelled'), skipped: count('skipped') });
    });
  });
}

const narrowed = process.argv.slice(2).length > 0;
if (!narrowed) {
  console.log('=== lint ===');
  const lint = spawnSync(process.execPath, [join(root, 'node_modules/eslint/bin/eslint.js'), '.'], { cwd: root, stdio: 'inherit' });
  if (lint.status !== 0) {
    console.error('\nlint failed: fix the problems above (npm run lint)');
    console.log('\ntests: 0 passed, 1 failed');
    process.exit(1);
  }
  console.log('lint: no problems');
  // tsx runs the tests without checking types, and the build checks src/ only: the tests are typed here.
  console.log('=== typecheck ===');
  const types = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', '.'], { cwd: root, stdio: 'inherit' });
  if (types.status !== 0) {
    console.log('\ntests: 0 passed, 1 failed');
    process.exit(1);
  }
  console.log('typecheck: no errors');
}
const files = testFiles(narrowed ? process.argv.slice(2) : [join(root, 'test')]);
const results = [];
if (only !== 'postgres') results.push(await runSuite('SQLite', files, { SVC_TEST_DB: 'sqlite' }));

if (only !== 'sqlite') {
  let cluster;
  let url = process.env.SVC_TEST_POSTGRES_URL;
  const bin = url ? undefined : findPostgresBin();
  if (!url && !bin) {
    const notice = 'PostgreSQL binaries not found: the PostgreSQL run of the suite is SKIPPED (apt-get install postgresql)';
    if (requirePostgres) {
      console.error(`\n!!! ${notice.replace('SKIPPED', 'REQUIRED but missing')} !!!`);
      process.exit(1);
    }
    console.error(`\n!!!!!!!! ${notice} !!!!!!!!\n`);
  } else {
    if (!url) {
      cluster = await startThrowawayCluster(bin);
      url = cluster.url;
    }
    try {
      results.push(await runSuite('PostgreSQL', files, { SVC_TEST_DB: 'postgres', SVC_TEST_POSTGRES_URL: url }));
    } finally {
      cluster?.stop();
    }
  }
}

const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
const bad = results.some((r) => r.code !== 0) || failed > 0 || passed === 0;
console.log(`\ntests: ${passed} passed, ${failed} failed`);
process.exit(bad ? 1 : 0);
