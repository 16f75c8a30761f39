/**
 * The parts of `npm test` (scripts/test.mjs) that decide how the suite runs and what its closing lines say: small
 * test files grouped into shared processes (scripts/test/groups.mjs, decision 0088), and the failures repeated at the
 * end of the output (scripts/test/failures.mjs), which is all a CI log's tail shows.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';

// The checkout (the runner's working folder): a compiled run executes this file from a mirror without scripts/.
const root = process.cwd();
// The scripts are plain JavaScript without declarations: what this file uses of them, typed here.
interface Groups {
  GROUP_SIZE: number;
  OWN_PROCESS: string;
  groupedEntries(root: string, compiled: string, label: string, files: string[], compiledOf: (file: string) => string, options?: { group?: boolean }): string[];
}
interface Failures {
  failuresIn(tap: string): { name: string; location: string; error: string }[];
  failureLines(label: string, failures: { name: string; location: string; error: string }[], compiledDir: string | undefined, limit?: number): string[];
}
const { groupedEntries, GROUP_SIZE, OWN_PROCESS } = (await import(pathToFileURL(join(root, 'scripts/test/groups.mjs')).href)) as Groups;
const { failuresIn, failureLines } = (await import(pathToFileURL(join(root, 'scripts/test/failures.mjs')).href)) as Failures;

const work = mkdtempSync(join(tmpdir(), 'svc-runner-report-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** A checkout-like tree under `work` with these test files (a header each), and a compiled folder beside it. */
function tree(name: string, files: Record<string, string>) {
  const checkout = join(work, name, 'checkout');
  const compiled = join(work, name, 'compiled');
  for (const [path, header] of Object.entries(files)) {
    mkdirSync(join(checkout, path, '..'), { recursive: true });
    writeFileSync(join(checkout, path), `// ${header}\n`);
  }
  mkdirSync(compiled, { recursive: true });
  const compiledOf = (file: string) => join(compiled, file.slice(checkout.length + 1)).replace(/\.ts$/, '.js');
  return { checkout, compiled, compiledOf, paths: Object.keys(files).map((path) => join(checkout, path)) };
}

describe('grouping test files into shared processes', () => {
  /** The compiled files an entry imports, as paths. */
  const membersOf = (entry: string) => [...readFileSync(entry, 'utf8').matchAll(/^import "file:\/\/(.*)";$/gm)].map((m) => m[1]);

  it('puts unit, integration and e2e files in groups of GROUP_SIZE, in order', () => {
    const names = Array.from({ length: GROUP_SIZE + 2 }, (_, i) => `test/unit/u${i}.test.ts`);
    const t = tree('plain', Object.fromEntries([...names, 'test/integration/i.test.ts', 'test/e2e/e.test.ts'].map((n) => [n, 'a test'])));
    const entries = groupedEntries(t.checkout, t.compiled, 'SQLite', t.paths, t.compiledOf);
    assert.equal(entries.length, 2, 'a full group, then one of the rest');
    assert.deepEqual(entries.flatMap(membersOf), t.paths.map(t.compiledOf), 'every file once, in order');
    assert.equal(membersOf(entries[0]!).length, GROUP_SIZE);
    assert.match(entries[0]!, /\.groups\/sqlite-1-group\.test\.js$/);
  });

  it('runs alone a browser test, a file of the longest list, and a file marked own-process, in the order given', () => {
    const t = tree('alone', {
      'test/e2e/guides.test.ts': 'the longest file',
      'test/unit/a.test.ts': 'a test',
      'test/unit/b.test.ts': 'a test',
      'test/browser/c.test.ts': 'a browser test',
      'test/unit/d.test.ts': `${OWN_PROCESS}: it changes process-wide state`,
      'test/unit/e.test.ts': 'a test',
    });
    const entries = groupedEntries(t.checkout, t.compiled, 'PostgreSQL', t.paths, t.compiledOf);
    assert.deepEqual(entries.map(membersOf), [[0], [1, 2], [3], [4], [5]].map((members) => members.map((i) => t.compiledOf(t.paths[i]!))));
    assert.deepEqual(
      entries.map((entry) => entry.slice(entry.lastIndexOf('/') + 1)),
      ['postgresql-1-guides.test.js', 'postgresql-2-group.test.js', 'postgresql-3-c.test.js', 'postgresql-4-d.test.js', 'postgresql-5-group.test.js'],
    );
  });

  it('names the entries so that sorting them by path, as node --test does before starting them, keeps the order given', () => {
    const names = Array.from({ length: 12 }, (_, i) => `test/browser/${String.fromCharCode(122 - i)}.test.ts`);
    const t = tree('order', Object.fromEntries(names.map((n) => [n, 'a browser test'])));
    const entries = groupedEntries(t.checkout, t.compiled, 'SQLite', t.paths, t.compiledOf);
    assert.deepEqual([...entries].sort(), entries);
    assert.deepEqual(entries.flatMap(membersOf), t.paths.map(t.compiledOf));
  });

  it('gives every file an entry of its own when grouping is off (SVC_TEST_GROUP=0)', () => {
    const t = tree('off', { 'test/unit/a.test.ts': 'a test', 'test/unit/b.test.ts': 'a test' });
    const entries = groupedEntries(t.checkout, t.compiled, 'SQLite', t.paths, t.compiledOf, { group: false });
    assert.deepEqual(entries.map(membersOf), t.paths.map((p) => [t.compiledOf(p)]));
  });
});

describe('the failures repeated at the end of a run', () => {
  const fixture = join(root, 'scripts', 'test', 'fixtures', 'fails-on-purpose.test.mjs');
  const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
  const tap = spawnSync(process.execPath, ['--test', '--test-reporter=tap', fixture], { encoding: 'utf8', env }).stdout;

  it('lists each failed test with its place and the first lines of its error, and not the suite around it', () => {
    const failures = failuresIn(tap);
    assert.deepEqual(
      failures.map(({ name }) => name),
      ['compares two numbers', 'throws at the top'],
    );
    assert.match(failures[0]!.location, /fails-on-purpose\.test\.mjs:7:3$/);
    assert.match(failures[0]!.error, /1 !== 2/);
    assert.equal(failures[1]!.error, 'first line second line');
  });

  it('names the pass and shortens a place under the compiled folder to the checkout path', () => {
    const lines = failureLines('SQLite', failuresIn(tap), join(root, 'scripts'));
    assert.match(lines[0]!, /^ {2}✖ SQLite: compares two numbers \(test\/fixtures\/fails-on-purpose\.test\.mjs:7:3\)\n {6}/);
    assert.deepEqual(failureLines('SQLite', failuresIn(tap), undefined, 1).slice(1), ['  … and 1 more in the SQLite pass']);
  });

  it('finds nothing in the report of a run that passed', () => {
    assert.deepEqual(failuresIn('TAP version 13\nok 1 - fine\n  ---\n  duration_ms: 1\n  ...\n1..1\n# pass 1\n# fail 0\n'), []);
  });
});
