/**
 * Measuring whether a parser's time grows linearly with its input (issue 12, point 1): the time of worst-case inputs
 * as a ratio to an ordinary input of the same size, measured in the same run, never a wall-clock constant. Builders
 * here return numbers and texts and never assert.
 */

/** `text` repeated to exactly `size` characters (cut in the last repeat). */
export function fill(text: string, size: number): string {
  return text.repeat(Math.ceil(size / text.length)).slice(0, size);
}

/** As many parts `part(0)`, `part(1)`, ... as fit in `size` characters, joined by `separator`. */
export function fillWith(part: (index: number) => string, size: number, separator = ''): string {
  const parts: string[] = [];
  let length = -separator.length;
  for (let index = 0; ; index++) {
    const next = part(index);
    if (length + separator.length + next.length > size) break;
    parts.push(next);
    length += separator.length + next.length;
  }
  return parts.join(separator);
}

/** Calls `work`, swallowing what it throws: refusing an input by throwing is an answer like any other. */
async function once(work: () => unknown): Promise<void> {
  try {
    await work();
  } catch {
    // The time to the refusal is what is measured.
  }
}

/**
 * The time of one call of `work`, in ms: the call is repeated until a few milliseconds have passed, so that inputs
 * handled in microseconds are measured as precisely as slow ones.
 */
async function sampleMs(work: () => unknown): Promise<number> {
  const start = process.hrtime.bigint();
  let calls = 0;
  let elapsed: number;
  do {
    await once(work);
    calls++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  } while (elapsed < 5 && calls < 1000);
  return elapsed / calls;
}

/** One worst-case input and how its time compares with the ordinary input's. */
export interface Ratio {
  name: string;
  ratio: number;
}

/** The ratio under which the suite's linear-time tests call a worst case linear (each file's BOUND). */
export const LINEAR_BOUND = 10;

/**
 * For each worst case, the lower quartile over up to `samples` of its time divided by the time of `normal` (a typical
 * input of the same size) measured just before it. A parser that is linear whatever its input gives small ratios; a
 * quadratic one gives ratios that grow with the size, in every sample. Measuring the two side by side keeps a burst of
 * load from the other tests (files run three at a time) from landing on one side only; taking the lower quartile, not
 * the median, keeps bursts that land on a few samples (a collection after a deeply nested input, another file's
 * start) from making a linear parser look slow, while a super-linear one stays far above any bound in each sample
 * (the calibration in linear-time-config.test.ts checks that a quadratic case is still caught).
 *
 * Sampling a case stops as soon as as many samples as the lower quartile's rank are under `stopBelow`: more samples
 * can only lower the lower quartile, so the verdict against that bound is the one all samples would give, and a linear
 * case (nearly all of them) costs one pair of calls instead of `samples` pairs and a warm-up (issue 40: the 256 KiB
 * YAML cases took 138 s). The ratio reported for such a case is then an upper bound of the full measurement's. A case
 * at or over the bound is still sampled `samples` times; its first, cold call is one of them.
 */
export async function timeRatios(
  normal: () => unknown,
  worst: Readonly<Record<string, () => unknown>>,
  samples = 9,
  stopBelow = LINEAR_BOUND,
): Promise<Ratio[]> {
  await once(normal);
  const rank = Math.floor(samples / 4);
  const ratios: Ratio[] = [];
  for (const [name, work] of Object.entries(worst)) {
    const each: number[] = [];
    while (each.length < samples && each.filter((r) => r < stopBelow).length <= rank) each.push((await sampleMs(work)) / (await sampleMs(normal)));
    each.sort((a, b) => a - b);
    ratios.push({ name, ratio: each[Math.min(rank, each.length - 1)] as number });
  }
  return ratios;
}

/** The ratios at or above `bound`, as a readable list for an assertion message (empty when none). */
export function tooSlow(ratios: readonly Ratio[], bound: number): string {
  return ratios
    .filter((r) => !(r.ratio < bound))
    .map((r) => `${r.name}: ${r.ratio.toFixed(1)}x`)
    .join(', ');
}

/** Every ratio, largest first, for the test's diagnostic output. */
export function ratioSummary(ratios: readonly Ratio[]): string {
  return [...ratios]
    .sort((a, b) => b.ratio - a.ratio)
    .map((r) => `${r.name} ${r.ratio.toFixed(1)}x`)
    .join('; ');
}
