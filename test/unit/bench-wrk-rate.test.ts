/**
 * `npm run bench` reads wrk's report (scripts/bench/wrk-output.mjs): its rate counts only 2xx answers, since wrk's
 * own Requests/sec counts refusals too and a server answering errors quickly would look fast.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

interface WrkOutput {
  wrkResult(out: string): { rps: number; errors: number; requests: number } | undefined;
}

const { wrkResult } = (await import(pathToFileURL(join(process.cwd(), 'scripts/bench/wrk-output.mjs')).href)) as WrkOutput;

/** A wrk report of `answered` answers in `duration`, `non2xx` of them not 2xx (the line is absent when none). */
const report = (answered: number, duration: string, non2xx?: number) =>
  [
    'Running 10s test @ https://127.0.0.1:1280/edge/client/v1/current-api-session',
    '  1 threads and 10 connections',
    `  ${answered} requests in ${duration}, 1.20MB read`,
    ...(non2xx === undefined ? [] : [`  Non-2xx or 3xx responses: ${non2xx}`]),
    `Requests/sec:   ${(answered / 10).toFixed(2)}`,
    'Transfer/sec:    122.88KB',
  ].join('\n');

test('counts only the 2xx answers in the rate, not the refusals wrk counts in its Requests/sec', () => {
  assert.deepEqual(wrkResult(report(10_000, '10.00s', 4_000)), { rps: 600, errors: 4_000, requests: 6_000 });
});

test('a run whose every answer is 2xx keeps wrk’s own rate', () => {
  assert.deepEqual(wrkResult(report(10_000, '10.00s')), { rps: 1_000, errors: 0, requests: 10_000 });
});

test('a run of refusals only has a rate of 0, and a run in minutes or milliseconds is divided by its own duration', () => {
  assert.equal(wrkResult(report(5_000, '10.00s', 5_000))?.rps, 0);
  assert.equal(wrkResult(report(6_000, '1.00m'))?.rps, 100);
  assert.equal(wrkResult(report(50, '500.00ms'))?.rps, 100);
});

test('reads no result from a report without its requests line', () => {
  assert.equal(wrkResult('unable to connect to 127.0.0.1:1280 Connection refused'), undefined);
});
