/**
 * YAML text -> one composed document, within a size and a nesting limit, with duplicate keys found in linear time.
 * The YAML library composes recursively and checks each key against every earlier key of its mapping; this module
 * runs its parser, refuses nesting past the limit from the parsed tokens (iteratively) before composing, and replaces
 * the key check with one set per mapping. Pure; used by yaml-source.ts.
 */
import { Composer, CST, isScalar, Parser, visit, YAMLParseError, type LineCounter } from 'yaml';
import type { Document } from 'yaml';

/** Longest text read, in characters. Controller and router files are a few KiB; this only stops pathological input. */
export const MAX_YAML_LENGTH = 256 * 1024;
/**
 * Deepest nesting of mappings and lists. The files nest about six levels; the YAML library composes the tree
 * recursively, so a deeper text is refused from the parsed tokens before it is composed.
 */
export const MAX_YAML_DEPTH = 64;

/** The document read from a text, or an empty one and why the text was refused as a whole. */
export interface ReadDocument {
  readonly document: Document.Parsed;
  readonly refusal?: { readonly offset: number; readonly message: string };
}

/**
 * Reads `text` into its first document, recording line starts in `lineCounter`. Syntax errors, duplicate keys and a
 * second document are in the document's errors; a text too long or nested too deep is a refusal instead.
 */
export function readDocument(text: string, lineCounter: LineCounter): ReadDocument {
  if (text.length > MAX_YAML_LENGTH) {
    return { document: compose([], 0), refusal: { offset: 0, message: `the file is ${text.length} characters long; at most ${MAX_YAML_LENGTH} are read` } };
  }
  const tokens = Array.from(new Parser(lineCounter.addNewLine).parse(text));
  const tooDeep = tooDeepAt(tokens);
  if (tooDeep !== undefined) {
    const message = `the file nests deeper than ${MAX_YAML_DEPTH} levels of mappings and lists`;
    return { document: compose([], text.length), refusal: { offset: tooDeep, message } };
  }
  const document = compose(tokens, text.length);
  for (const error of duplicateKeys(document)) document.errors.push(error);
  return { document };
}

/**
 * The first document of the parsed tokens (an empty one when there are none); a second document is an error.
 * Keys are composed without the library's duplicate check (see duplicateKeys); positions stay in the source tokens.
 */
function compose(tokens: readonly CST.Token[], length: number): Document.Parsed {
  const composer = new Composer({ keepSourceTokens: true, uniqueKeys: false });
  let first: Document.Parsed | undefined;
  for (const document of composer.compose(tokens, true, length)) {
    if (first === undefined) {
      first = document;
      continue;
    }
    first.errors.push(new YAMLParseError([document.range[0], document.range[1]], 'MULTIPLE_DOCS', 'the file holds more than one YAML document'));
    break;
  }
  // `compose` with forceDoc set always produces a document, even for empty input.
  return first as Document.Parsed;
}

/** Offset of the first mapping or list nested deeper than MAX_YAML_DEPTH, found without recursion. */
function tooDeepAt(tokens: readonly CST.Token[]): number | undefined {
  const pending: { token: CST.Token; depth: number }[] = tokens.map((token) => ({ token, depth: 0 })).reverse();
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { token, depth } = next;
    if (token.type === 'document' && token.value !== undefined) pending.push({ token: token.value, depth });
    if (!CST.isCollection(token)) continue;
    if (depth >= MAX_YAML_DEPTH) return token.offset;
    // Pushed last-first so that tokens are taken in the order of the text and the first offending one is reported.
    for (let i = token.items.length - 1; i >= 0; i--) {
      const item = token.items[i] as CST.CollectionItem;
      if (item.value) pending.push({ token: item.value, depth: depth + 1 });
      if (item.key) pending.push({ token: item.key, depth: depth + 1 });
    }
  }
  return undefined;
}

/**
 * "Map keys must be unique" for every key that repeats an earlier one of its mapping. Scalar keys are equal when their
 * values are (`1` and `"1"` are different keys), as in the library's own check, which this one replaces.
 */
function duplicateKeys(document: Document.Parsed): YAMLParseError[] {
  const errors: YAMLParseError[] = [];
  visit(document, {
    Map(_key, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        if (seen.has(pair.key.value)) {
          const start = pair.key.range?.[0] ?? 0;
          errors.push(new YAMLParseError([start, start + 1], 'DUPLICATE_KEY', 'Map keys must be unique'));
        }
        seen.add(pair.key.value);
      }
    },
  });
  return errors;
}
