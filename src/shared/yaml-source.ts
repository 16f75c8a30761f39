/**
 * YAML text -> plain value, keeping the parsed document so any key path can be traced back to a line and
 * column. Syntax errors and `${VAR}` substitution failures come back as diagnostics. Generic: used by the
 * controller config loader and the router config validator. Does no I/O and never reads process.env.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, visit } from 'yaml';
import type { Document, Node, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import type { Diagnostic } from './diagnostics.js';
import { substituteReferences } from './variable-references.js';
import { readDocument } from './yaml-document.js';

export { MAX_YAML_DEPTH, MAX_YAML_LENGTH } from './yaml-document.js';

/** A path into the parsed value: map keys as strings, list indexes as numbers. */
export type KeyPath = readonly (string | number)[];

/** A parsed file: its name for diagnostics, the document (with node ranges) and the offset -> line table. */
export interface YamlSource {
  readonly file: string;
  readonly document: Document.Parsed;
  readonly lineCounter: LineCounter;
}

export interface ParsedYaml {
  readonly source: YamlSource;
  /** The plain JS value (after substitution); undefined when the text has syntax errors. */
  readonly value: unknown;
  /** Syntax errors, YAML warnings, and unset or malformed `${VAR}` references. */
  readonly diagnostics: Diagnostic[];
  /** Paths of values whose substitution failed, so later checks can skip repeating the problem there. */
  readonly unresolved: readonly string[];
}

export interface ParseYamlOptions {
  /** Variables for `${NAME}` in string values; substitution is off when this is not given. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Which part of a key's line a diagnostic points at: the key itself, or the value after it. */
export type Target = 'key' | 'value';

interface Located {
  readonly offset: number;
}

/**
 * Parses YAML text. Duplicate keys and every other syntax problem are errors with their positions;
 * the value is only produced when there are none, because a half-parsed tree would mislead later checks.
 * `${NAME}` in string values (never in keys) is replaced from `options.env`; `$${` writes a literal `${`.
 * Text longer than MAX_YAML_LENGTH or nesting deeper than MAX_YAML_DEPTH is refused with one error.
 *
 * The work is linear in the text whatever it holds (see yaml-document.ts for the reading, variable-references.ts for
 * the substitution; key paths are rebuilt and looked up through tables built once per list or mapping).
 */
export function parseYaml(text: string, file: string, options: ParseYamlOptions = {}): ParsedYaml {
  const lineCounter = new LineCounter();
  const { document, refusal } = readDocument(text, lineCounter);
  const source: YamlSource = { file, document, lineCounter };
  if (refusal !== undefined) return refused(source, refusal.offset, refusal.message);
  const diagnostics: Diagnostic[] = [];
  for (const [severity, problems] of [['error', document.errors], ['warning', document.warnings]] as const) {
    for (const problem of problems) {
      const { line, col } = lineCounter.linePos(problem.pos[0]);
      diagnostics.push({ severity, file, line, column: col, path: '', message: problem.message });
    }
  }
  if (document.errors.length > 0) return { source, value: undefined, diagnostics, unresolved: [] };
  const unresolved = options.env === undefined ? [] : substitute(source, options.env, diagnostics);
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // Aliases that would expand past the alias budget (a "billion laughs" file) throw here rather than at parsing.
    return refused(source, 0, (error as Error).message);
  }
  return { source, value, diagnostics, unresolved };
}

/** The answer for a text refused as a whole: one error at `offset`, no value. */
function refused(source: YamlSource, offset: number, message: string): ParsedYaml {
  const { line, column } = offset === 0 ? { line: 1, column: 1 } : positionOfOffset(source, offset);
  return { source, value: undefined, diagnostics: [{ severity: 'error', file: source.file, line, column, path: '', message }], unresolved: [] };
}

/** Rewrites string scalars in place; returns the formatted paths of values that had a problem. */
function substitute(source: YamlSource, env: Readonly<Record<string, string | undefined>>, out: Diagnostic[]): string[] {
  const unresolved: string[] = [];
  const indexes: ListIndexes = new Map();
  visit(source.document, {
    Scalar(key, node, ancestors) {
      if (key === 'key' || typeof node.value !== 'string' || !node.value.includes('${')) return;
      const { text, problems } = substituteReferences(node.value, env);
      node.value = text;
      if (problems.length === 0) return;
      const path = formatKeyPath(pathOfAncestors(ancestors, node, indexes));
      unresolved.push(path);
      const { line, column } = positionOfOffset(source, node.range?.[0] ?? 0);
      for (const message of problems) out.push({ severity: 'error', file: source.file, line, column, path, message });
    },
  });
  return unresolved;
}

/** Position of each item in a list, built once per list: `indexOf` per value would be quadratic in a long list. */
type ListIndexes = Map<YAMLSeq, Map<unknown, number>>;

/** Rebuilds the key path of a scalar from the ancestors `visit` hands over. */
function pathOfAncestors(ancestors: readonly unknown[], node: Scalar, indexes: ListIndexes): (string | number)[] {
  const path: (string | number)[] = [];
  const chain = [...ancestors, node];
  for (let i = 0; i < chain.length - 1; i++) {
    const parent = chain[i];
    if (isPair(parent) && isScalar(parent.key)) path.push(String(parent.key.value));
    if (isSeq(parent)) {
      let positions = indexes.get(parent);
      if (positions === undefined) {
        positions = new Map(parent.items.map((item, index) => [item, index] as const));
        indexes.set(parent, positions);
      }
      path.push(positions.get(chain[i + 1] as Node) ?? -1);
    }
  }
  return path;
}

/** `web[0].bindPoints[1].address` from `['web', 0, 'bindPoints', 1, 'address']`. */
export function formatKeyPath(path: KeyPath): string {
  let text = '';
  for (const segment of path) text += typeof segment === 'number' ? `[${segment}]` : text === '' ? segment : `.${segment}`;
  return text;
}

/** The 1-based line and column of a character offset in the source text. */
export function positionOfOffset(source: YamlSource, offset: number): { line: number; column: number } {
  const { line, col } = source.lineCounter.linePos(offset);
  return { line, column: col };
}

/** True when every segment of the path exists in the document. */
export function hasPath(source: YamlSource, path: KeyPath): boolean {
  return walk(source, path).found;
}

/**
 * Where a key path is in the file (1-based). `target: 'key'` points at the key (or list item), `'value'`
 * at its value, falling back to the key when the value is empty. When the path does not exist, points at
 * the nearest parent that does (its key), or the start of the document.
 */
export function locate(source: YamlSource, path: KeyPath, target: Target): { line: number; column: number } {
  const { found, last } = walk(source, path);
  const at = found && target === 'value' ? (last.value ?? last.key) : (last.key ?? last.value);
  return positionOfOffset(source, at?.offset ?? source.document.contents?.range[0] ?? 0);
}

/** Builds a diagnostic for a key path, positioned by `locate`. */
export function diagnosticAt(
  source: YamlSource,
  path: KeyPath,
  target: Target,
  severity: Diagnostic['severity'],
  message: string,
): Diagnostic {
  const { line, column } = locate(source, path, target);
  return { severity, file: source.file, line, column, path: formatKeyPath(path), message };
}

interface Step {
  readonly key?: Located;
  readonly value?: Located;
}

/** Follows the path through maps and lists; `last` is the deepest step that exists. */
function walk(source: YamlSource, path: KeyPath): { found: boolean; last: Step } {
  let node: unknown = source.document.contents;
  let last: Step = { value: offsetOf(node) };
  for (const segment of path) {
    if (isMap(node)) {
      const pair = pairsByKey(node).get(String(segment));
      if (pair === undefined) return { found: false, last };
      node = pair.value;
      last = { key: offsetOf(pair.key), value: offsetOf(node) };
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)];
      if (item === undefined) return { found: false, last };
      // A list item has no key; its `-` stands in for one (and for the value when the item is empty).
      const dash = dashOf(node, Number(segment));
      last = { key: dash ?? offsetOf(item), value: offsetOf(item) ?? dash };
      node = item;
    } else {
      return { found: false, last };
    }
  }
  return { found: true, last };
}

/** The pairs of each mapping by key text (the first when two keys read the same), built once per mapping. */
const pairIndexes = new WeakMap<YAMLMap, Map<string, Pair>>();

/**
 * The pairs of `map` by the text of their scalar keys. Every diagnostic locates its path, so a linear search per
 * lookup would make a file with many problems in one long mapping quadratic.
 */
function pairsByKey(map: YAMLMap): Map<string, Pair> {
  let pairs = pairIndexes.get(map);
  if (pairs === undefined) {
    pairs = new Map();
    for (const pair of map.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
      if (key !== undefined && !pairs.has(key)) pairs.set(key, pair);
    }
    pairIndexes.set(map, pairs);
  }
  return pairs;
}

/** Offset of the `-` of a block list item, from the source tokens kept at parse time. */
function dashOf(list: YAMLSeq, index: number): Located | undefined {
  const token = list.srcToken;
  if (token?.type !== 'block-seq') return undefined;
  const dash = token.items[index]?.start.find((part) => part.type === 'seq-item-ind');
  return dash === undefined ? undefined : { offset: dash.offset };
}

/** Start offset of a node; undefined for a missing or empty value (`key:` with nothing after it). */
function offsetOf(node: unknown): Located | undefined {
  if (isScalar(node) || isMap(node) || isSeq(node)) {
    const range = node.range;
    if (range === undefined || range === null) return undefined;
    if (isScalar(node) && node.value === null && range[0] === range[1]) return undefined;
    return { offset: range[0] };
  }
  return undefined;
}
