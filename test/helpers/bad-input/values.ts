/**
 * The raw material of the bad-input corpus: a seeded PRNG (so that a failing run is repeated exactly by its seed),
 * hostile strings, numbers, keys and nestings, and a JSON writer that can also place text JSON.stringify would never
 * write (a number such as 1e400, nesting built as text). Builders return values and never assert.
 */
import { randomInt } from 'node:crypto';

export interface Rng {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** An integer in [min, max]. */
  between(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  /** `count` distinct items in random order (all of them when fewer). */
  sample<T>(items: readonly T[], count: number): T[];
}

/** mulberry32: tiny, fast, and the same sequence for the same seed on every platform. */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    seed,
    next,
    int,
    between: (min, max) => min + int(max - min + 1),
    pick: (items) => items[int(items.length)] as (typeof items)[number],
    chance: (p) => next() < p,
    sample(items, count) {
      const copy = [...items];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = int(i + 1);
        [copy[i], copy[j]] = [copy[j] as (typeof copy)[number], copy[i] as (typeof copy)[number]];
      }
      return copy.slice(0, count);
    },
  };
}

/** The corpus seed: SVC_CORPUS_SEED when set (to repeat a run), else a new random one. */
export function corpusSeed(env: string | undefined = process.env.SVC_CORPUS_SEED): number {
  if (env !== undefined && env !== '') {
    const seed = Number(env);
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new Error(`SVC_CORPUS_SEED must be an integer 0..4294967295, not ${env}`);
    return seed;
  }
  return randomInt(0, 0x7fffffff);
}

/** JSON text placed as is by `jsonText`. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of a corpus value (plain data, RawJson anywhere inside). Corpus values nest only a few levels. */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}:${jsonText(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Short strings that trip parsers, terminals, logs and SQL: control and format characters, scripts, quoting. */
const NASTY = [
  'ctl\u0001\u0007\b\u001b[31mred\u007f',
  'Zoë 名前 Ωmega 🙂',
  'rtl\u202eoverride\u200bzero\ufeffbom',
  'line\u2028sep\u2029para',
  "' or 1=1 --",
  '"; drop table identities; --',
  '{"__proto__":{"isAdmin":true}}',
  '../../../../etc/passwd',
  '${7*7}{{7*7}}<script>alert(1)</script>',
  '%00%2e%2e%2f',
  '\\u0000\\ud800',
  ' \t\n\r ',
  '',
];

/** Rarely: characters the strict JSON parser refuses outright (U+0000, an unpaired surrogate). */
const REFUSED = ['nul\u0000byte', 'lone\ud800surrogate', 'low\udc00first'];

/** A hostile string of at most `room` characters: a nasty snippet, sometimes repeated to a large size. */
export function hostileString(rng: Rng, room: number): string {
  if (rng.chance(0.05)) return rng.pick(REFUSED);
  const snippet = rng.pick(NASTY);
  if (rng.chance(0.35) && room > 64) {
    const size = rng.between(Math.min(room, 256), room);
    const unit = snippet === '' ? 'x' : snippet;
    return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  }
  return snippet.slice(0, room);
}

/** A hostile JSON number (or number text JSON.stringify cannot write). */
export function hostileNumber(rng: Rng): number | RawJson {
  return rng.pick<number | RawJson>([
    1e308,
    -1e308,
    1.5,
    -0.000001,
    2 ** 53 + 2,
    -(2 ** 63),
    new RawJson('123456789012345678901234567890'),
    new RawJson('1e400'),
    new RawJson('-1e-400'),
    new RawJson('0.1e1'),
  ]);
}

/** Containers nested `depth` deep as text (arrays, objects or a mix), innermost holding a number. */
export function nestedText(rng: Rng, depth: number, outer: 'array' | 'any' = 'any'): RawJson {
  // 'mixed' opens with an array; a value that must be an array (a wrong-type case) is never all objects.
  const style = rng.pick(outer === 'array' ? (['array', 'mixed'] as const) : (['array', 'object', 'mixed'] as const));
  const parts: string[] = [];
  const closers: string[] = [];
  for (let i = 0; i < depth; i++) {
    const array = style === 'array' || (style === 'mixed' && i % 2 === 0);
    parts.push(array ? '[' : '{"a":');
    closers.push(array ? ']' : '}');
  }
  return new RawJson(`${parts.join('')}1${closers.reverse().join('')}`);
}

/** A hostile member name: huge, control characters, scripts, or lookalikes of field names. */
export function hostileKey(rng: Rng): string {
  return rng.pick([
    () => `k${'ey'.repeat(rng.between(1000, 50_000))}`,
    () => 'ctl\u0001\u001b[2Jkey',
    () => 'ключ 🙂',
    () => 'name\u200b',
    () => 'isAdmin ',
    () => 'a.b[0]/~1',
    () => '',
  ])();
}

/** JSON types; `number` stands for integers too. */
export type JsonType = 'string' | 'number' | 'boolean' | 'null' | 'array' | 'object';

/** A hostile value of one JSON type; containers hold hostile content, nested below the depth limit. */
export function hostileValue(rng: Rng, type: JsonType, room = 200_000): unknown {
  switch (type) {
    case 'string':
      return hostileString(rng, room);
    case 'number':
      return hostileNumber(rng);
    case 'boolean':
      return rng.chance(0.5);
    case 'null':
      return null;
    case 'array':
      return rng.pick([() => [], () => [hostileString(rng, 64), 1, null], () => nestedText(rng, rng.between(2, 30), 'array'), () => Array.from({ length: rng.between(100, 5000) }, (_, i) => i)])();
    case 'object':
      return rng.pick([() => ({}), () => ({ [hostileKey(rng)]: hostileString(rng, 64) }), () => ({ a: nestedText(rng, rng.between(2, 30)) })])();
  }
}
