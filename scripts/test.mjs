#!/usr/bin/env node
// `npm test`: runs the whole suite twice, on SQLite (in memory) and on PostgreSQL.
// PostgreSQL: SVC_TEST_POSTGRES_URL if set, else a throwaway cluster (initdb + pg_ctl as the `postgres` user,
// a free loopback port, a temporary data folder) stopped at the end. Without PostgreSQL binaries the
// PostgreSQL run is skipped with a loud notice, unless SVC_TEST_REQUIRE_POSTGRES=1 (CI), where it fails.
// Arguments are test files or folders to run instead of all of test/; `--store sqlite|postgres` runs one store only
// (SVC_TEST_ONLY does the same). A run of everything also runs the lint (eslint.config.js: recommended rules and the
// layer directions of STYLE.md) and the typecheck, beside the tests; either failing stops and fails the run.
// Speed (issue 13, point 7; docs/decisions/0024-compiled-test-runs.md, 0087): src/ and test/ are emitted as
// JavaScript into a temporary folder first (scripts/test/compile.mjs, --noCheck), and the test processes run that JS
// with source maps instead of transforming TypeScript through tsx in every process. Narrowed runs of at least
// COMPILE_FROM files compile too; smaller ones run through tsx, which is quicker for a few files. SVC_TEST_COMPILE=1|0 forces either way. Test files run SVC_TEST_CONCURRENCY at a time (default below).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compiledPath, compileSuite } from './test/compile.mjs';
import { longestFirst } from './test/order.mjs';
import { failureLines, failuresIn } from './test/failures.mjs';
import { fileHeader, groupedEntries } from './test/groups.mjs';
import { buildConsole } from './build-console.mjs';
import { findPostgresBin, startThrowawayCluster } from './lib/postgres-cluster.mjs';

const root = new URL('..', import.meta.url).pathname;
const requirePostgres = process.env.SVC_TEST_REQUIRE_POSTGRES === '1';

/** `--store sqlite|postgres` (or `--store=...`) taken out of the arguments; the rest are files and folders. */
function storeArgument(args) {
  const rest = [];
  let store;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--store') store = args[++i] ?? '';
    else if (arg.startsWith('--store=')) store = arg.slice('--store='.length);
    else rest.push(arg);
  }
  return { store, rest };
}
const { store, rest: paths } = storeArgument(process.argv.slice(2));
// "sqlite" or "postgres": run one store (for quick local loops); the flag wins over the environment.
const only = store ?? (process.env.SVC_TEST_ONLY || undefined);
if (only !== undefined && only !== 'sqlite' && only !== 'postgres') {
  console.error(`--store (or SVC_TEST_ONLY) is '${only}': it takes sqlite or postgres`);
  process.exit(2);
}
/** Narrowed runs of this many files or more are compiled first (the compile costs about as much as 10 tsx starts). */
const COMPILE_FROM = 10;
/**
 * Test files run at the same time. Much of a file's time is waiting (its own child processes, sockets, PostgreSQL,
 * argon2 on the libuv pool), so one more than the cores keeps them busy; node's own default is cores - 1.
 */
const concurrency = Number(process.env.SVC_TEST_CONCURRENCY) || availableParallelism() + 1;

function testFiles(paths) {
  const out = [];
  const walk = (p) => {
    if (statSync(p).isDirectory()) for (const entry of readdirSync(p).sort()) walk(join(p, entry));
    else if (p.endsWith('.test.ts')) out.push(p);
  };
  for (const p of paths) walk(p);
  return out;
}

/**
 * The marker a test file carries in its header when nothing in it reads the store under test (pure modules, config
 * files, quickstart's own embedded SQLite): `npm test` runs it in the SQLite pass only (decision 0061). The suite's
 * hygiene test refuses the marker in a file that reaches the store helpers.
 */
const STORE_INDEPENDENT = '@store-independent';
/**
 * The marker a browser test carries when what it checks is the page itself (decision 0087): the API calls under the
 * page run on both stores in test/e2e and test/integration, so its PostgreSQL run repeated a minute of Chromium to
 * prove nothing new. Allowed under test/browser/ only (the suite's hygiene test).
 */
const UI_ONLY = '@ui-only';
const isStoreIndependent = (file) => fileHeader(file).includes(STORE_INDEPENDENT);
const isSqlitePassOnly = (file) => isStoreIndependent(file) || fileHeader(file).includes(UI_ONLY);

/**
 * One folder per run holds every temporary file and folder the tests make: it is the test processes' TMPDIR (so
 * os.tmpdir() and everything they spawn land in it), and it is removed when this script exits, however it exits and
 * whatever a test forgot to remove (a test that crashed before its `after`). The compiled suite and the PostgreSQL
 * cluster live outside it (the cluster's folder must be reachable by the postgres user) and are removed on exit too.
 */
const runTemp = mkdtempSync(join(tmpdir(), 'svc-test-run-'));

/** The node --test process running now: stopped if the run ends early (a lint or type error found meanwhile). */
let running;

/** Runs `files` (TypeScript through tsx, or their compiled JS when `compiled` is the compile's folder). */
function runSuite(label, files, env, compiled) {
  const tap = join(mkdtempSync(join(runTemp, 'tap-')), 'report.tap');
  console.log(`\n=== ${label} ===`);
  const loader = compiled ? ['--enable-source-maps'] : ['--import', 'tsx'];
  const compiledOf = (file) => compiledPath(root, compiled, file);
  // Small files share a process when compiled (scripts/test/groups.mjs); SVC_TEST_GROUP=0 runs every file alone.
  const run = compiled ? groupedEntries(root, compiled, label, files, compiledOf, { group: process.env.SVC_TEST_GROUP !== '0' }) : files;
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        ...loader,
        '--test',
        `--test-concurrency=${concurrency}`,
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        '--test-reporter=tap',
        `--test-reporter-destination=${tap}`,
        ...run,
      ],
      { cwd: root, stdio: 'inherit', env: { ...process.env, TMPDIR: runTemp, ...env } },
    );
    running = child;
    child.on('exit', (code) => {
      running = undefined;
      const text = existsSync(tap) ? readFileSync(tap, 'utf8') : '';
      const count = (name) => Number(text.match(new RegExp(`^# ${name} (\\d+)$`, 'm'))?.[1] ?? 0);
      // A cancelled test (its file crashed or timed out) did not pass: it counts as a failure in the summary.
      resolve({
        code: code ?? 1,
        passed: count('pass'),
        failed: count('fail') + count('cancelled'),
        skipped: count('skipped'),
        failures: failureLines(label, failuresIn(text), compiled),
      });
    });
  });
}

/** A step that fails the run before any test: the summary counts it as one failure. */
function failBeforeTests(message) {
  if (message) console.error(message);
  console.log('\ntests: 0 passed, 1 failed');
  process.exit(1);
}

/** Runs a node script, its output kept to be printed in order after the steps running meanwhile. */
function runQuiet(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ status: code ?? 1, output }));
  });
}

const narrowed = paths.length > 0;
const files = longestFirst(root, testFiles(narrowed ? paths : [join(root, 'test')]));
// The controller serves the console from dist/console/ (decision 0079): built here from these sources (esbuild, well
// under a second), so the browser tests never test an older build.
await buildConsole();
const forced = process.env.SVC_TEST_COMPILE;
const compile = forced === '1' ? true : forced === '0' ? false : !narrowed || files.length >= COMPILE_FROM;
let build;
let cluster;
process.on('exit', () => {
  running?.kill('SIGTERM');
  build?.remove();
  // A run stopped by a signal leaves the cluster running otherwise: stop it (and remove its folder) here too.
  try {
    cluster?.stop();
  } catch (error) {
    console.error(`stopping the PostgreSQL cluster: ${error.message}`);
  }
  rmSync(runTemp, { recursive: true, force: true });
});
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) process.on(signal, () => process.exit(code));
/** The lint and the typechecks of a full run, running beside the tests (see below); settled before the summary. */
let checks;
if (!narrowed) {
  // The suite is compiled first, emit only (--noCheck, a few seconds), and the tests start at once. The lint and the
  // two typechecks (the project, and the console's browser code with its own settings) run meanwhile: they cost about
  // 70 s of CPU, which the test passes' waits (sockets, timers, child processes) leave free, where before they ran
  // first and the tests waited for them. A lint or type error still fails the run, as soon as it is known: the
  // problems are printed and the run stops there.
  build = await compileSuite(root, { check: false });
  if (build.status !== 0) failBeforeTests(`${build.output}\ncompiling the suite failed (tsc --noCheck)`);
  const color = process.stdout.isTTY ? ['--color'] : [];
  checks = Promise.all([
    runQuiet([join(root, 'node_modules/eslint/bin/eslint.js'), ...color, '.']),
    runQuiet([join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', '.']),
    runQuiet([join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', 'console/tsconfig.json']),
  ]).then(([lint, types, consoleTypes]) => {
    const verdict = { lint: lint.status === 0, types: types.status === 0 && consoleTypes.status === 0 };
    if (verdict.lint && verdict.types) return verdict;
    console.log('\n=== lint ===');
    process.stdout.write(lint.output);
    console.log('=== typecheck ===');
    process.stdout.write(types.output);
    process.stdout.write(consoleTypes.output);
    console.log(`\n${verdict.lint ? '' : 'lint failed (npm run lint); '}${verdict.types ? '' : 'typecheck failed; '}the run stops here`);
    console.log('\ntests: 0 passed, 1 failed');
    process.exit(1);
  });
} else if (compile) {
  build = await compileSuite(root, { check: false });
  if (build.status !== 0) failBeforeTests(`${build.output}\ncompiling the suite failed (tsc --noCheck)`);
}
if (build) {
  const missing = files.filter((file) => !existsSync(compiledPath(root, build.dir, file)));
  if (missing.length > 0) failBeforeTests(`not compiled (outside tsconfig.json's include?): ${missing.join(', ')}`);
}
const compiled = build?.dir;
const results = [];
/** Runs the summary leaves out, named in it so that a green line never hides a store that was not tested. */
const notRun = [];
if (only !== 'postgres') results.push(await runSuite('SQLite', files, { SVC_TEST_DB: 'sqlite' }, compiled));

// A file marked store-independent or ui-only ran in the SQLite pass already: running it again on PostgreSQL proves
// nothing new. It still runs there when that is the only pass (--store postgres).
const postgresFiles = only === 'postgres' ? files : files.filter((file) => !isSqlitePassOnly(file));
// Only store-independent files given: no PostgreSQL pass (node --test with no file would look for tests itself).
if (only !== 'sqlite' && postgresFiles.length === 0) notRun.push('no PostgreSQL pass: every file given is store-independent');
else if (only !== 'sqlite') {
  let url = process.env.SVC_TEST_POSTGRES_URL;
  const bin = url ? undefined : findPostgresBin();
  if (!url && !bin) {
    const notice = 'PostgreSQL binaries not found: the PostgreSQL run of the suite is SKIPPED (apt-get install postgresql)';
    if (requirePostgres) {
      console.error(`\n!!! ${notice.replace('SKIPPED', 'REQUIRED but missing')} !!!`);
      process.exit(1);
    }
    console.error(`\n!!!!!!!! ${notice} !!!!!!!!\n`);
    notRun.push('the PostgreSQL run was SKIPPED (no PostgreSQL binaries)');
  } else {
    if (!url) {
      cluster = await startThrowawayCluster(bin);
      url = cluster.url;
    }
    try {
      results.push(await runSuite('PostgreSQL', postgresFiles, { SVC_TEST_DB: 'postgres', SVC_TEST_POSTGRES_URL: url }, compiled));
    } finally {
      const started = cluster;
      cluster = undefined;
      started?.stop();
    }
  }
}

if (checks) {
  await checks;
  console.log('\nlint: no problems; typecheck: no errors');
}
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
const bad = results.some((r) => r.code !== 0) || failed > 0 || passed === 0;
const failures = results.flatMap((r) => r.failures);
if (failures.length > 0) console.log(`\nfailed:\n${failures.join('\n')}`);
if (only === 'sqlite') notRun.push('SQLite only (--store sqlite)');
if (only === 'postgres') notRun.push('PostgreSQL only (--store postgres)');
console.log(`\ntests: ${passed} passed, ${failed} failed${notRun.length > 0 ? `; ${notRun.join('; ')}` : ''}`);
process.exit(bad ? 1 : 0);
