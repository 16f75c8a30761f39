/**
 * Go-style duration strings ("500ms", "30s", "5m", "1h30m"), as the controller and router YAML files use them.
 * Pure: parses and formats, nothing else.
 */
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION = /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g;

/** Milliseconds of a duration string, or undefined when it is not one ("0" alone is accepted as zero). */
export function parseDuration(text: string): number | undefined {
  if (text === '0') return 0;
  if (!DURATION.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(PART)) total += Number(amount) * (UNIT_MS[unit as string] as number);
  return Math.round(total);
}

/** The shortest exact Go-style rendering of a millisecond count ("1h30m", "1m", "250ms"). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  let rest = ms;
  let out = '';
  for (const [unit, size] of [['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
    if (rest >= size) {
      out += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  if (rest > 0) out += `${rest}ms`;
  return out;
}
