/**
 * The terminator a dial goes to (issue 42): precedence first, then the service's strategy (`smartrouting` and `ha`:
 * lowest cost, ties at random; `weighted`: 1 / (1 + cost); `random`: uniform), driven by a seeded random source so
 * the distributions below are the same on every run, and by the CSPRNG-backed source the controller uses.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseTerminator } from '../../src/policy/terminator-strategy.js';
import { randomUnit } from '../../src/shared/random.js';
import type { TerminatorPrecedence } from '../../src/domain/terminator.js';
import { seededRandom } from '../helpers/authz-network.js';

const seeded = seededRandom;

const t = (id: string, cost: number, precedence: TerminatorPrecedence = 'default') => ({ id, cost, precedence });

/** How often each id is chosen in `draws` choices, as shares of the draws. */
function shares(candidates: ReturnType<typeof t>[], strategy: string, draws: number, random: () => number): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(candidates.map((c) => [c.id, 0]));
  for (let i = 0; i < draws; i++) {
    const chosen = chooseTerminator(candidates, strategy, random);
    counts[chosen!.id]! += 1;
  }
  return Object.fromEntries(Object.entries(counts).map(([id, n]) => [id, n / draws]));
}

const STRATEGIES = ['smartrouting', 'ha', 'weighted', 'random'];

describe('the terminator strategy chooser', () => {
  it('chooses nothing among no terminators', () => {
    for (const strategy of STRATEGIES) assert.equal(chooseTerminator([], strategy, seeded(1)), undefined);
  });

  it('considers only the best precedence present, whatever the strategy and the costs', () => {
    const candidates = [t('cheap-default', 0), t('dear-required', 900, 'required'), t('cheap-failed', 0, 'failed')];
    for (const strategy of STRATEGIES) assert.deepEqual(shares(candidates, strategy, 200, seeded(2)), { 'cheap-default': 0, 'dear-required': 1, 'cheap-failed': 0 }, strategy);
    const noRequired = [t('dear-default', 900), t('cheap-failed', 0, 'failed')];
    for (const strategy of STRATEGIES) assert.equal(shares(noRequired, strategy, 200, seeded(3))['dear-default'], 1, strategy);
    assert.equal(chooseTerminator([t('only-failed', 5, 'failed')], 'smartrouting', seeded(4))?.id, 'only-failed', 'a failed one when nothing else is');
  });

  it('smartrouting and ha choose the lowest cost, splitting ties at random', () => {
    const candidates = [t('low-a', 1), t('high', 50), t('low-b', 1)];
    for (const strategy of ['smartrouting', 'ha']) {
      const seen = shares(candidates, strategy, 4_000, seeded(5));
      assert.equal(seen.high, 0, strategy);
      assert.ok(Math.abs(seen['low-a']! - 0.5) < 0.03, `${strategy}: ${JSON.stringify(seen)}`);
    }
  });

  it('weighted chooses in proportion to 1 / (1 + cost)', () => {
    const seen = shares([t('c0', 0), t('c1', 1), t('c10', 10)], 'weighted', 20_000, seeded(6));
    const weights = { c0: 1, c1: 1 / 2, c10: 1 / 11 };
    const total = weights.c0 + weights.c1 + weights.c10;
    for (const [id, weight] of Object.entries(weights)) assert.ok(Math.abs(seen[id]! - weight / total) < 0.015, `${id}: ${seen[id]} vs ${weight / total}`);
  });

  it('random chooses uniformly, whatever the costs', () => {
    const seen = shares([t('a', 0), t('b', 100), t('c', 65_535)], 'random', 9_000, seeded(7));
    for (const id of ['a', 'b', 'c']) assert.ok(Math.abs(seen[id]! - 1 / 3) < 0.02, `${id}: ${seen[id]}`);
  });

  it('takes an unknown strategy name as smartrouting', () => {
    assert.deepEqual(shares([t('low', 0), t('high', 9)], 'no-such-strategy', 100, seeded(8)), { low: 1, high: 0 });
  });

  it('stays within the candidates at the ends of the random range, and with the CSPRNG source', () => {
    const candidates = [t('first', 3), t('second', 3)];
    for (const strategy of STRATEGIES) {
      assert.equal(chooseTerminator(candidates, strategy, () => 0)?.id, 'first', strategy);
      assert.equal(chooseTerminator(candidates, strategy, () => 1 - Number.EPSILON)?.id, 'second', strategy);
    }
    const drawn = Array.from({ length: 1_000 }, () => randomUnit());
    assert.ok(drawn.every((x) => x >= 0 && x < 1));
    assert.ok(new Set(drawn).size > 990, 'no repeats to speak of');
    assert.deepEqual(new Set(Object.values(shares(candidates, 'random', 2_000, randomUnit)).map((share) => share > 0.4)), new Set([true]));
  });
});
