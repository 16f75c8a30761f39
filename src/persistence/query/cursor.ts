/**
 * The parser's read position over the token list, with the small helpers every grammar rule uses:
 * keyword tests (case-insensitive), field lookup against the FieldMap, and errors located at a token.
 */
import type { ApiError } from '../../errors/api-error.js';
import { closestMatch } from '../../shared/text-distance.js';
import type { FieldMap, FieldSpec } from './ast.js';
import { describeToken, filterError, unknownNameHint } from './filter-error.js';
import { resolveField, UNORDERABLE_TYPES } from './fields.js';
import type { Token } from './lexer.js';

export interface Cursor {
  readonly text: string;
  readonly tokens: readonly Token[];
  readonly fields: FieldMap;
  index: number;
  /** Open parentheses and `not`s around the current position, to refuse pathological nesting. */
  depth: number;
}

/** The token `ahead` places after the current one; the `end` token once past the last. */
export function peek(cursor: Cursor, ahead = 0): Token {
  const tokens = cursor.tokens;
  return tokens[Math.min(cursor.index + ahead, tokens.length - 1)] as Token;
}

/** Consumes and returns the current token (never moves past `end`). */
export function advance(cursor: Cursor): Token {
  const token = peek(cursor);
  if (token.kind !== 'end') cursor.index++;
  return token;
}

/** True when `token` is one of the keywords `words` (given in lower case), in any case. */
export function isKeyword(token: Token, ...words: string[]): boolean {
  return token.kind === 'word' && words.includes(token.text.toLowerCase());
}

export function isPunct(token: Token, punct: '(' | ')' | '[' | ']' | ','): boolean {
  return token.kind === 'punct' && token.text === punct;
}

/** An INVALID_FILTER (or the given code) error located at `token`. */
export function errorAt(
  cursor: Cursor,
  token: Token,
  reason: string,
  options: { code?: 'INVALID_FILTER' | 'INVALID_PAGINATION' | 'INVALID_SORT_IDENTIFIER'; hint?: string } = {},
): ApiError {
  return filterError({ text: cursor.text, offset: token.offset }, reason, options);
}

/** "found 'x'" / "found the end of the filter", for hints. */
export function found(token: Token): string {
  return `found ${describeToken(token.text)}`;
}

/** The spec of the field `token` names; an unknown name is an error suggesting the closest known one. */
export function lookupField(
  cursor: Cursor,
  token: Token,
  code: 'INVALID_FILTER' | 'INVALID_SORT_IDENTIFIER' = 'INVALID_FILTER',
): FieldSpec {
  const spec = resolveField(cursor.fields, token.text);
  if (spec !== undefined) {
    if (code === 'INVALID_SORT_IDENTIFIER' && UNORDERABLE_TYPES.has(spec.type)) {
      throw errorAt(cursor, token, `cannot sort by '${token.text}'`, { code, hint: 'a set of values or a tag has no single value to order by' });
    }
    return spec;
  }
  const known = Object.keys(cursor.fields);
  const hint = unknownNameHint(closestMatch(token.text, known), known);
  const what = code === 'INVALID_SORT_IDENTIFIER' ? 'unknown sort field' : 'unknown field';
  throw errorAt(cursor, token, `${what} '${token.text}'`, { code, hint });
}
