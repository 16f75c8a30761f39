/**
 * Semantic versions and the version ranges of OS posture checks (reference facts §B1: each range is in blang/semver's
 * syntax, e.g. `>=10.0.19041 <11.0.0 || >=12.0.0`). Comparators joined by spaces must all hold; alternatives joined by
 * `||` are tried in turn. Versions of one or two numbers are read with the missing parts as 0, on both sides. Pure;
 * the ranges were checked when the check was written (posture-check-input.ts), so a range that does not parse here
 * matches nothing rather than throwing.
 */

interface Version {
  numbers: [number, number, number];
  prerelease: string[];
}

const VERSION = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;
const COMPARATOR = /^(>=|<=|>|<|==|=|!=)?(.+)$/;

/** A version, or undefined when `text` is not one (a reported version that is not semantic fails the check). */
export function parseVersion(text: string): Version | undefined {
  const match = VERSION.exec(text.trim());
  if (!match) return undefined;
  const number = (part: string | undefined) => (part === undefined ? 0 : Number(part));
  const numbers: [number, number, number] = [number(match[1]), number(match[2]), number(match[3])];
  if (numbers.some((n) => !Number.isSafeInteger(n))) return undefined;
  return { numbers, prerelease: match[4] ? match[4].split('.') : [] };
}

function compareIdentifiers(a: string, b: string): number {
  const numericA = /^\d+$/.test(a);
  const numericB = /^\d+$/.test(b);
  if (numericA && numericB) return Math.sign(Number(a) - Number(b));
  if (numericA !== numericB) return numericA ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Semver precedence: numbers first; a pre-release sorts before its release. */
export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a.numbers[i] !== b.numbers[i]) return Math.sign(a.numbers[i]! - b.numbers[i]!);
  if (a.prerelease.length === 0 || b.prerelease.length === 0) return Math.sign(b.prerelease.length - a.prerelease.length);
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const order = compareIdentifiers(a.prerelease[i]!, b.prerelease[i]!);
    if (order !== 0) return order;
  }
  return Math.sign(a.prerelease.length - b.prerelease.length);
}

function holds(comparator: string, version: Version): boolean {
  const match = COMPARATOR.exec(comparator);
  const bound = match ? parseVersion(match[2]!) : undefined;
  if (!match || !bound) return false;
  const order = compareVersions(version, bound);
  switch (match[1]) {
    case '>=':
      return order >= 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '<':
      return order < 0;
    case '!=':
      return order !== 0;
    default:
      return order === 0;
  }
}

/** Whether `version` lies in `range`. */
export function satisfies(version: Version, range: string): boolean {
  return range.split('||').some((alternative) => {
    const comparators = alternative.trim().split(/\s+/).filter(Boolean);
    return comparators.length > 0 && comparators.every((comparator) => holds(comparator, version));
  });
}
