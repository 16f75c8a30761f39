/**
 * Small helpers the router rules share on top of the controller's RuleContext (reused as is: where to
 * report, and which parts passed the schema check).
 */
import { formatDuration } from '../../shared/durations.js';
import type { KeyPath } from '../../shared/yaml-source.js';
import { readDuration, reportError } from '../../config/rule-context.js';
import type { RuleContext } from '../../config/rule-context.js';

export type { RuleContext };

/** Runs a value parser on a clean string value and reports what it says is wrong. */
export function checkValue(context: RuleContext, path: KeyPath, value: unknown, problem: (text: string) => string | undefined): void {
  if (typeof value !== 'string' || !context.clean(path)) return;
  const found = problem(value);
  if (found !== undefined) reportError(context, path, found);
}

/** Each item of a clean list of strings through a parser. */
export function checkEach(context: RuleContext, path: KeyPath, values: unknown, problem: (text: string) => string | undefined): void {
  if (!Array.isArray(values) || !context.clean(path)) return;
  values.forEach((value, index) => checkValue(context, [...path, index], value, problem));
}

/**
 * Milliseconds of a clean duration value within `[minimumMs, maximumMs]`, or undefined after reporting.
 * Zero is allowed only when `minimumMs` is 0 (delays); intervals and timeouts need more than nothing.
 */
export function checkDuration(
  context: RuleContext,
  path: KeyPath,
  value: unknown,
  minimumMs = 1,
  maximumMs = Number.POSITIVE_INFINITY,
): number | undefined {
  if (typeof value !== 'string' || !context.clean(path)) return undefined;
  const ms = readDuration(context, path, value, minimumMs);
  if (ms === undefined) return undefined;
  if (ms > maximumMs) {
    reportError(context, path, `${value} must be at most ${formatDuration(maximumMs)}`);
    return undefined;
  }
  return ms;
}

/** True for a mapping (what the schema check promises for clean object parts). */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
