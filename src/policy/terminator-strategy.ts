/**
 * Which terminator a dial goes to (issue 42; upstream's terminator strategies, by their names): precedence first
 * (`required` over `default` over `failed`: only the best precedence present is considered), then the service's
 * strategy among those:
 * - `smartrouting` and `ha`: the lowest cost, ties at random (the dial decision adds each candidate's path cost
 *   before it asks: services/routers/sdk-dial.ts, decision 0070);
 * - `weighted`: at random, each terminator weighted 1 / (1 + cost), so cost 0 is chosen twice as often as cost 1
 *   and eleven times as often as cost 10;
 * - `random`: at random, uniformly.
 * Pure: the random source is given (a number in [0, 1)), so tests can drive it.
 */
import type { TerminatorPrecedence } from '../domain/terminator.js';

/** What the choice reads of a terminator. */
export interface CostedTerminator {
  precedence: TerminatorPrecedence;
  cost: number;
}

/** Lower ranks first: a `required` terminator is chosen over any `default`, a `failed` one only when nothing else is. */
const PRECEDENCE_RANK: Record<TerminatorPrecedence, number> = { required: 0, default: 1, failed: 2 };

/** The terminators of the best precedence present among `candidates`. */
export function bestPrecedence<T extends CostedTerminator>(candidates: readonly T[]): T[] {
  const best = Math.min(...candidates.map((t) => PRECEDENCE_RANK[t.precedence]));
  return candidates.filter((t) => PRECEDENCE_RANK[t.precedence] === best);
}

/** One of `items`, uniformly. */
const uniform = <T>(items: readonly T[], random: () => number): T => items[Math.min(items.length - 1, Math.floor(random() * items.length))] as T;

/**
 * The terminator a dial goes to, or undefined when there is none. An unknown strategy name is taken as
 * `smartrouting` (the default a service is created with).
 *
 * @example chooseTerminator([{ precedence: 'default', cost: 5 }, { precedence: 'required', cost: 9 }], 'smartrouting', Math.random) // the required one
 */
export function chooseTerminator<T extends CostedTerminator>(candidates: readonly T[], strategy: string, random: () => number): T | undefined {
  if (candidates.length === 0) return undefined;
  const group = bestPrecedence(candidates);
  if (strategy === 'random') return uniform(group, random);
  if (strategy === 'weighted') {
    const weights = group.map((t) => 1 / (1 + t.cost));
    const total = weights.reduce((sum, w) => sum + w, 0);
    let point = random() * total;
    for (let i = 0; i < group.length; i++) {
      point -= weights[i] as number;
      if (point < 0) return group[i];
    }
    return group[group.length - 1];
  }
  const lowest = Math.min(...group.map((t) => t.cost));
  return uniform(group.filter((t) => t.cost === lowest), random);
}
