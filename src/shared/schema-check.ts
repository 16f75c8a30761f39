/**
 * Checks a plain value read from YAML against a JSON Schema (Ajv) and turns each Ajv error into a
 * positioned diagnostic with a plain sentence. Defaults declared in the schema are written into the value
 * as it is checked. Generic: the schema decides the shape, this file only words the problems.
 */
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { closestMatch } from './text-distance.js';
import type { Diagnostic } from './diagnostics.js';
import { diagnosticAt, formatKeyPath } from './yaml-source.js';
import type { KeyPath, Target, YamlSource } from './yaml-source.js';

export interface SchemaCheckResult {
  readonly diagnostics: Diagnostic[];
  /** Formatted key paths at which a problem was found, for `isClean`. */
  readonly problemPaths: readonly string[];
}

// One Ajv instance and a cache of compiled validators: compiling is the slow part and schemas are constants.
const ajv = new Ajv({ allErrors: true, useDefaults: true, verbose: true, strict: true });
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * Validates `value` (a sub-tree found at `basePath` of the file, or the whole file when `basePath` is
 * empty) and fills in schema defaults in place. Every problem is reported, not only the first.
 *
 * @example const { diagnostics } = checkAgainstSchema(parsed.value, ControllerFileSchema, parsed.source);
 */
export function checkAgainstSchema(
  value: unknown,
  schema: object,
  source: YamlSource,
  basePath: KeyPath = [],
): SchemaCheckResult {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  validate(value);
  const errors = withoutNoise(validate.errors ?? []);
  const diagnostics: Diagnostic[] = [];
  const problemPaths: string[] = [];
  for (const error of errors) {
    const path = [...basePath, ...pathOfPointer(value, error.instancePath)];
    const { target, at, message } = describe(error, path);
    diagnostics.push(diagnosticAt(source, at, target, 'error', message));
    // An unknown key is reported but never read by the rules, so it must not stop the rules of its known siblings
    // (every problem of a file is reported in one run).
    if (error.keyword !== 'additionalProperties') problemPaths.push(formatKeyPath(at));
  }
  return { diagnostics, problemPaths };
}

/**
 * True when no problem was found at `path`, below it, or at any key above it, i.e. the value there has the
 * shape the schema promises and rules may read it as typed.
 */
export function isClean(result: SchemaCheckResult, path: KeyPath): boolean {
  const target = formatKeyPath(path);
  const { problems, sorted } = cleanIndex(result);
  if (problems.size === 0) return true;
  // Every path is below the root, ''.
  if (target === '' || problems.has('') || problems.has(target)) return false;
  // A problem below the target: one that starts with it and a separator.
  if (startsWithAny(sorted, `${target}.`) || startsWithAny(sorted, `${target}[`)) return false;
  // A problem above the target: one the target starts with, followed by a separator.
  for (let i = 0; i < target.length; i++) {
    if ((target[i] === '.' || target[i] === '[') && problems.has(target.slice(0, i))) return false;
  }
  return true;
}

/** A result's problem paths as a set and in sorted order, so that `isClean` need not scan them all. */
interface CleanIndex {
  readonly problems: ReadonlySet<string>;
  readonly sorted: readonly string[];
}

// Built once per result: rules ask about every item of a list, so scanning every problem per question was quadratic
// in a file with many items and many problems.
const indexes = new WeakMap<SchemaCheckResult, CleanIndex>();

function cleanIndex(result: SchemaCheckResult): CleanIndex {
  let index = indexes.get(result);
  if (index === undefined) {
    index = { problems: new Set(result.problemPaths), sorted: [...result.problemPaths].sort() };
    indexes.set(result, index);
  }
  return index;
}

/** Whether a text of the sorted list starts with `prefix`: those texts come together, from the first not below it. */
function startsWithAny(sorted: readonly string[], prefix: string): boolean {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as string) < prefix) low = middle + 1;
    else high = middle;
  }
  return low < sorted.length && (sorted[low] as string).startsWith(prefix);
}

/** A `const`/`enum` error says more than the `type` error Ajv also raises for the same value. */
function withoutNoise(errors: readonly ErrorObject[]): ErrorObject[] {
  const valueChecked = new Set(errors.filter((e) => e.keyword === 'const' || e.keyword === 'enum').map((e) => e.instancePath));
  return errors.filter((e) => !(e.keyword === 'type' && valueChecked.has(e.instancePath)));
}

/** JSON pointer -> key path; a segment is a list index only where the value really is a list. */
function pathOfPointer(root: unknown, pointer: string): (string | number)[] {
  if (pointer === '') return [];
  const path: (string | number)[] = [];
  let node = root;
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      path.push(Number(segment));
      node = node[Number(segment)];
    } else {
      path.push(segment);
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[segment] : undefined;
    }
  }
  return path;
}

interface Described {
  readonly target: Target;
  readonly at: (string | number)[];
  readonly message: string;
}

/** Words one Ajv error as a sentence and decides which key path and which part of it to point at. */
function describe(error: ErrorObject, path: (string | number)[]): Described {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { target: 'key', at: [...path, String(params.missingProperty)], message: 'missing required key' };
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const known = Object.keys((error.parentSchema?.properties ?? {}) as object);
      const guess = closestMatch(key, known);
      const hint = guess === undefined ? '' : ` (did you mean '${guess}'?)`;
      return { target: 'key', at: [...path, key], message: `unknown key '${key}'${hint}` };
    }
    case 'type':
      return { target: 'value', at: path, message: `expected ${typeName(String(params.type))}, got ${kindOf(error.data)}` };
    case 'const':
      return { target: 'value', at: path, message: oneOf([params.allowedValue], error.data) };
    case 'enum':
      return { target: 'value', at: path, message: oneOf(params.allowedValues as unknown[], error.data) };
    case 'minItems':
      return { target: 'value', at: path, message: `must have at least ${String(params.limit)} item(s)` };
    case 'maxItems':
      return { target: 'value', at: path, message: `must have at most ${String(params.limit)} item(s)` };
    case 'minLength':
      return {
        target: 'value',
        at: path,
        message: params.limit === 1 ? 'must not be empty' : `must be at least ${String(params.limit)} characters long`,
      };
    case 'maxLength':
      return { target: 'value', at: path, message: `must be at most ${String(params.limit)} characters long` };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { target: 'value', at: path, message: `must be ${String(params.comparison)} ${String(params.limit)}` };
    default:
      // Keywords this project's schemas do not use yet keep Ajv's own wording.
      return { target: 'value', at: path, message: error.message ?? `fails the '${error.keyword}' check` };
  }
}

/** `must be one of 'a', 'b' (did you mean 'a'?)`, or `must be 3` for a single allowed value. */
function oneOf(allowed: readonly unknown[], actual: unknown): string {
  const shown = allowed.map((v) => (typeof v === 'string' ? `'${v}'` : String(v)));
  const base = shown.length === 1 ? `must be ${shown[0]}` : `must be one of ${shown.join(', ')}`;
  const strings = allowed.filter((v): v is string => typeof v === 'string');
  const guess = typeof actual === 'string' ? closestMatch(actual, strings) : undefined;
  return guess === undefined ? base : `${base} (did you mean '${guess}'?)`;
}

const TYPE_NAMES: Record<string, string> = {
  object: 'a mapping',
  array: 'a list',
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  null: 'nothing',
};

function typeName(type: string): string {
  return type.split(',').map((t) => TYPE_NAMES[t] ?? t).join(' or ');
}

/** What the YAML actually held, in the same words as `typeName`. */
function kindOf(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeName(typeof value)} (${JSON.stringify(value)})`;
}
