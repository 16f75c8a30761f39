/**
 * `npm test` (scripts/test.mjs) removes the temporary folders its tests make, including those a test left behind, and
 * its own report folder: after a run, and after a run interrupted as Ctrl+C interrupts it (a signal to the whole
 * process group). Checked by running the script on a fixture test with TMPDIR pointed at an empty folder.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

// The checkout (the runner's working folder), not this file's: a compiled run executes this file from a mirror that
// has no scripts/test.mjs.
const root = process.cwd();
const FIXTURE = join(root, 'scripts', 'test', 'fixtures', 'leaves-temp-files.test.ts');
const STORE_INDEPENDENT_FIXTURE = join(root, 'scripts', 'test', 'fixtures', 'store-independent.test.ts');
const outside = mkdtempSync(join(tmpdir(), 'svc-runner-cleanup-'));
after(() => rmSync(outside, { recursive: true, force: true }));

/**
 * Starts `node scripts/test.mjs ...args FIXTURE` in its own process group with TMPDIR = a new empty folder, on SQLite
 * only unless `env` says otherwise.
 */
function startRun(name: string, env: Record<string, string>, args: string[] = []) {
  const base = join(outside, name);
  const report = join(outside, `${name}.paths`);
  rmSync(base, { recursive: true, force: true });
  // Without this the inner `node --test` sees it runs inside a test (NODE_TEST_CONTEXT) and runs nothing.
  // The PostgreSQL run of the outer suite gives its cluster and its requirement; the inner run decides its own.
  const { NODE_TEST_CONTEXT: _context, SVC_TEST_POSTGRES_URL: _url, SVC_TEST_REQUIRE_POSTGRES: _required, ...parentEnv } = process.env;
  const child = spawn(process.execPath, [join(root, 'scripts', 'test.mjs'), ...args, FIXTURE], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...parentEnv, TMPDIR: mkdtempSync(base), SVC_TEST_ONLY: 'sqlite', SVC_TEST_COMPILE: '0', SVC_LEAK_REPORT: report, ...env },
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  let done = false;
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code, signal) => {
      done = true;
      resolve(code ?? (signal ? 128 : null));
    }),
  );
  const leaked = () => (existsSync(report) ? readFileSync(report, 'utf8').split('\n').filter(Boolean) : []);
  return { child, base, exited, leaked, output: () => output, done: () => done };
}

function tempRoots(run: { base: string }): string[] {
  // mkdtempSync(base) made `${base}XXXXXX`; that folder is the run's TMPDIR.
  const parent = join(run.base, '..');
  const name = run.base.slice(parent.length + 1);
  return readdirSync(parent).filter((entry) => entry.startsWith(name) && !entry.endsWith('.paths'));
}

describe('the test runner and temporary folders', () => {
  it('removes what the tests left in the temporary folder, and its own report folder, after a run', async () => {
    const run = startRun('finished', {});
    assert.equal(await run.exited, 0, run.output());
    const [leaked] = run.leaked();
    assert.ok(leaked, 'the fixture made a folder');
    assert.equal(existsSync(leaked), false, `${leaked} is gone`);
    const [tmp] = tempRoots(run);
    assert.ok(tmp);
    assert.deepEqual(readdirSync(join(outside, tmp)), [], 'nothing is left in TMPDIR');
  });

  it('removes them when the run is interrupted by a signal to its process group', async () => {
    const run = startRun('interrupted', { SVC_LEAK_WAIT: '1' });
    // Waits for the fixture to have made its folder (the test's own timeout bounds the wait).
    while (run.leaked().length === 0) {
      assert.equal(run.done(), false, `the run ended before the fixture made its folder: ${run.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    process.kill(-(run.child.pid as number), 'SIGINT');
    await run.exited;
    const [leaked] = run.leaked();
    assert.equal(existsSync(leaked as string), false, `${leaked} is gone`);
    const [tmp] = tempRoots(run);
    assert.ok(tmp);
    assert.deepEqual(readdirSync(join(outside, tmp)), [], 'nothing is left in TMPDIR');
  });
});

describe('the test runner and the stores it runs on', () => {
  // A folder without PostgreSQL versions in it: the runner finds no binaries there.
  const noPostgres = { SVC_TEST_ONLY: '', SVC_TEST_POSTGRES_ROOT: mkdtempSync(join(outside, 'no-postgres-')) };
  const summary = (output: string) => output.split('\n').find((line) => line.startsWith('tests: ')) ?? `no summary in: ${output}`;

  it('says on its summary line that the PostgreSQL run was skipped when PostgreSQL is missing', async () => {
    const run = startRun('no-postgres', noPostgres);
    assert.equal(await run.exited, 0, run.output());
    assert.equal(summary(run.output()), 'tests: 1 passed, 0 failed; the PostgreSQL run was SKIPPED (no PostgreSQL binaries)');
  });

  it('fails when PostgreSQL is required and missing, and ends with a plain summary when both stores ran, a store-independent file once', async () => {
    const required = startRun('postgres-required', { ...noPostgres, SVC_TEST_REQUIRE_POSTGRES: '1' });
    assert.equal(await required.exited, 1, required.output());
    assert.match(required.output(), /PostgreSQL binaries not found: the PostgreSQL run of the suite is REQUIRED but missing/);
    // Positive control: with a PostgreSQL URL (this run's own cluster, when the outer suite runs on PostgreSQL) both
    // stores run and nothing is left out of the summary.
    const url = process.env.SVC_TEST_POSTGRES_URL;
    if (url) {
      const both = startRun('both-stores', { ...noPostgres, SVC_TEST_POSTGRES_URL: url, SVC_TEST_REQUIRE_POSTGRES: '1' });
      assert.equal(await both.exited, 0, both.output());
      assert.equal(summary(both.output()), 'tests: 2 passed, 0 failed');
      // A file marked @store-independent runs in the SQLite pass only, and in the PostgreSQL pass when that is the
      // only one.
      const marked = startRun('both-stores-marked', { ...noPostgres, SVC_TEST_POSTGRES_URL: url }, [STORE_INDEPENDENT_FIXTURE]);
      assert.equal(await marked.exited, 0, marked.output());
      assert.equal(summary(marked.output()), 'tests: 3 passed, 0 failed');
      const postgresOnly = startRun('postgres-only-marked', { ...noPostgres, SVC_TEST_POSTGRES_URL: url }, ['--store', 'postgres', STORE_INDEPENDENT_FIXTURE]);
      assert.equal(await postgresOnly.exited, 0, postgresOnly.output());
      assert.equal(summary(postgresOnly.output()), 'tests: 2 passed, 0 failed; PostgreSQL only (--store postgres)');
    }
  });

  it('runs one store with --store, says so on its summary line, and refuses a store it does not know', async () => {
    const sqlite = startRun('store-sqlite', noPostgres, ['--store', 'sqlite']);
    assert.equal(await sqlite.exited, 0, sqlite.output());
    assert.doesNotMatch(sqlite.output(), /=== PostgreSQL ===|SKIPPED/);
    assert.equal(summary(sqlite.output()), 'tests: 1 passed, 0 failed; SQLite only (--store sqlite)');
    const unknown = startRun('store-unknown', noPostgres, ['--store=mysql']);
    assert.equal(await unknown.exited, 2, unknown.output());
    assert.match(unknown.output(), /--store \(or SVC_TEST_ONLY\) is 'mysql': it takes sqlite or postgres/);
  });
});
