/**
 * The benchmark's login ratios (scripts/bench/paired-ratio.mjs): the README's login figures compare each round with
 * the raw argon2id runs made just before and just after it, so a slow minute of the host lowers both sides of a
 * ratio rather than one.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

interface PairedRatio {
  roundRatios(rates: number[], raw: number[]): number[];
  describeRatio(rates: number[], raw: number[]): string;
  roundsAgainst(rates: number[], baselineRates: number[]): number[];
  describeAgainst(rates: number[], baselineRates: number[]): string;
}

const paired = (await import(pathToFileURL(join(process.cwd(), 'scripts/bench/paired-ratio.mjs')).href)) as PairedRatio;

test('each round is divided by the mean of the raw runs around it', () => {
  assert.deepEqual(paired.roundRatios([90, 80], [100, 100, 60]), [0.9, 1]);
});

test('a host that slows between rounds moves both sides of a ratio: the rounds agree where medians taken apart would not', () => {
  // The machine runs at full speed for round 1 and at 80% from round 2 on; svc keeps 0.8 of the raw rate when steady.
  const raw = [200, 200, 160, 160];
  const rates = [160, 128, 128];
  // Round 2 is paired with the mean of 200 and 160, the host's speed over that round; rounds 1 and 3 read 0.8.
  assert.deepEqual(paired.roundRatios(rates, raw).map((r) => r.toFixed(2)), ['0.80', '0.71', '0.80']);
  // The medians taken apart divide a slow minute's logins (128) by a fast minute's hashes (200): 0.64.
  assert.match(paired.describeRatio(rates, raw), /^0\.80 \(rounds 0\.80 0\.71 0\.80; medians 128\.0 \/ 200\.0\)$/);
});

test('the figure is the median round, so one disturbed round does not move it', () => {
  const ratios = paired.describeRatio([80, 40, 82, 79, 81], [100, 100, 100, 100, 100, 100]);
  assert.match(ratios, /^0\.80 \(rounds 0\.80 0\.40 0\.82 0\.79 0\.81;/);
});

test('rounds without a raw run on each side are refused rather than paired with the wrong runs', () => {
  assert.throws(() => paired.roundRatios([80, 80], [100, 100]), /2 rounds need 3 raw runs around them, got 2/);
});

test('svc is read against a baseline round by round, so a host that slows between rounds does not move the figure', () => {
  // The host slows by a fifth from round 2 on; svc keeps 0.95 of the baseline's rate throughout.
  assert.deepEqual(paired.roundsAgainst([190, 152, 152], [200, 160, 160]).map((r) => r.toFixed(2)), ['0.95', '0.95', '0.95']);
  assert.equal(paired.describeAgainst([190, 140, 152], [200, 160, 160]), '0.95 (rounds 0.95 0.88 0.95)');
  assert.throws(() => paired.roundsAgainst([190, 152], [200]), /2 rounds of svc need as many of the baseline, got 1/);
});
