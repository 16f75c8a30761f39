/**
 * What the semantic rules share while they read one controller file: where to report problems, how to
 * resolve relative paths, and the files whose readability the loader checks afterwards. Keeping the file
 * checks as a list lets the rules stay pure; `load.ts` does the I/O.
 */
import { isAbsolute, resolve } from 'node:path';
import { formatDuration, parseDuration } from '../shared/durations.js';
import { isClean } from '../shared/schema-check.js';
import type { SchemaCheckResult } from '../shared/schema-check.js';
import { diagnosticAt } from '../shared/yaml-source.js';
import type { KeyPath, Target, YamlSource } from '../shared/yaml-source.js';
import type { Diagnostic } from './types.js';

/** A file named in the config, to be checked for existence and readability. */
export interface FileReference {
  readonly path: KeyPath;
  readonly absolute: string;
}

export interface RuleContext {
  readonly source: YamlSource;
  /** Folder of the config file; relative paths in the file start here. */
  readonly baseDir: string;
  readonly diagnostics: Diagnostic[];
  readonly files: FileReference[];
  /**
   * Whether the value at `path` passed the schema check. Rules read only clean parts as typed: a part
   * with a shape problem is already reported, and checking it further would repeat it in other words.
   */
  readonly clean: (path: KeyPath) => boolean;
}

/** A fresh context for one file, after its schema check. */
export function createRuleContext(source: YamlSource, baseDir: string, schema: SchemaCheckResult): RuleContext {
  return { source, baseDir, diagnostics: [], files: [], clean: (path) => isClean(schema, path) };
}

/** Reports an error; points at the value unless `target` says the key. */
export function reportError(context: RuleContext, path: KeyPath, message: string, target: Target = 'value'): void {
  context.diagnostics.push(diagnosticAt(context.source, path, target, 'error', message));
}

/** Reports a warning: the file loads, but something was adjusted or is doubtful. */
export function reportWarning(context: RuleContext, path: KeyPath, message: string, target: Target = 'value'): void {
  context.diagnostics.push(diagnosticAt(context.source, path, target, 'warning', message));
}

/** Errors so far; rules compare before and after to know whether their part came out whole. */
export function errorCount(context: RuleContext): number {
  // Diagnostics are only ever appended, so each is looked at once: rules ask before and after every list item, and
  // counting the whole list each time was quadratic in a file with many faulty items.
  const tally = errorTallies.get(context.diagnostics) ?? { seen: 0, errors: 0 };
  for (; tally.seen < context.diagnostics.length; tally.seen++) {
    if (context.diagnostics[tally.seen]?.severity === 'error') tally.errors++;
  }
  errorTallies.set(context.diagnostics, tally);
  return tally.errors;
}

const errorTallies = new WeakMap<readonly Diagnostic[], { seen: number; errors: number }>();

/**
 * Milliseconds of a duration value, or undefined after reporting an error when it is not a duration or is
 * below `minimumMs` (the controller refuses such values rather than guessing).
 */
export function readDuration(context: RuleContext, path: KeyPath, text: string, minimumMs = 1): number | undefined {
  const ms = parseDuration(text);
  if (ms === undefined) {
    reportError(context, path, `'${text}' is not a duration (use a number with a unit: ms, s, m, h; e.g. 30s, 1h30m)`);
    return undefined;
  }
  if (ms < minimumMs) {
    const limit = minimumMs === 1 ? 'must be greater than 0' : `must be at least ${formatDuration(minimumMs)}`;
    reportError(context, path, `${text} ${limit}`);
    return undefined;
  }
  return ms;
}

/** The absolute path of a file named at `path`, registered for the readability check. */
export function referToFile(context: RuleContext, path: KeyPath, text: string): string {
  const absolute = isAbsolute(text) ? text : resolve(context.baseDir, text);
  context.files.push({ path, absolute });
  return absolute;
}
