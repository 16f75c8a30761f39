/**
 * Recursive-descent parser of the Edge API filter parameter (ZitiQL, see
 * shared/reference/openziti-edge-api-facts.md §5), checking field names and literal types as it goes:
 *
 *   query     := [orExpr] [sort by field [asc|desc] (, field [asc|desc])*] [skip N] [limit N|none]
 *   orExpr    := andExpr (or andExpr)*
 *   andExpr   := unary (and unary)*
 *   unary     := not unary | ( orExpr ) | true | false | predicate      (see predicate.ts)
 *
 * Keywords are case-insensitive. `and` binds tighter than `or`, and `not` tighter than both.
 */
import type { FieldMap, FilterExpr, ParsedFilter, SortKey } from './ast.js';
import { advance, errorAt, found, isKeyword, isPunct, lookupField, peek, type Cursor } from './cursor.js';
import { filterError } from './filter-error.js';
import { tokenize, type Token } from './lexer.js';
import { parsePredicate, setFieldArgument } from './predicate.js';

/** Longer filters are refused before tokenizing, so a huge parameter cannot cost much. */
export const MAX_FILTER_LENGTH = 4096;
/** Deepest nesting of parentheses and `not`, so recursion stays shallow whatever the input. */
export const MAX_NESTING_DEPTH = 32;

/** Words that cannot start a condition; a better message than "unknown field 'and'". */
const NOT_A_CONDITION = ['and', 'or', 'sort', 'skip', 'limit', 'in', 'between', 'contains', 'icontains', 'null'];

/**
 * Parses a filter against the fields a list exposes. Throws ApiError INVALID_FILTER (or INVALID_SORT_IDENTIFIER
 * for an unknown `sort by` field, INVALID_PAGINATION for a bad `skip`/`limit` number) naming the column.
 *
 * @example parseFilter('name contains "web" and createdAt > datetime(2024-01-01T00:00:00Z) limit 20', fields)
 */
export function parseFilter(text: string, fields: FieldMap): ParsedFilter {
  if (text.length > MAX_FILTER_LENGTH) {
    // Only the allowed prefix is echoed back in the error, not the whole oversized input.
    throw filterError(
      { text: text.slice(0, MAX_FILTER_LENGTH), offset: MAX_FILTER_LENGTH },
      `text goes past the ${MAX_FILTER_LENGTH}-character limit`,
      { hint: `it is ${text.length} characters long` },
    );
  }
  const cursor: Cursor = { text, tokens: tokenize(text), fields, index: 0, depth: 0 };
  const result: ParsedFilter = {};
  if (!(peek(cursor).kind === 'end' || isKeyword(peek(cursor), 'sort', 'skip', 'limit'))) result.where = parseOr(cursor);
  if (isKeyword(peek(cursor), 'sort')) result.sort = parseSort(cursor);
  if (isKeyword(peek(cursor), 'skip')) result.skip = parseSkip(cursor);
  if (isKeyword(peek(cursor), 'limit')) result.limit = parseLimit(cursor);
  expectEnd(cursor);
  return result;
}

function expectEnd(cursor: Cursor): void {
  const rest = peek(cursor);
  if (rest.kind === 'end') return;
  if (isPunct(rest, ')')) throw errorAt(cursor, rest, `unexpected ')'`, { hint: `there is no '(' to close` });
  throw errorAt(cursor, rest, `unexpected '${rest.text}'`, {
    hint: 'expected and, or, or the end of the filter; clauses come in the order sort by, skip, limit',
  });
}

function parseOr(cursor: Cursor): FilterExpr {
  const operands = [parseAnd(cursor)];
  while (isKeyword(peek(cursor), 'or')) {
    advance(cursor);
    operands.push(parseAnd(cursor));
  }
  return operands.length === 1 ? (operands[0] as FilterExpr) : { kind: 'or', operands };
}

function parseAnd(cursor: Cursor): FilterExpr {
  const operands = [parseUnary(cursor)];
  while (isKeyword(peek(cursor), 'and')) {
    advance(cursor);
    operands.push(parseUnary(cursor));
  }
  return operands.length === 1 ? (operands[0] as FilterExpr) : { kind: 'and', operands };
}

function parseUnary(cursor: Cursor): FilterExpr {
  const token = peek(cursor);
  if (isKeyword(token, 'not')) {
    advance(cursor);
    return nested(cursor, token, () => ({ kind: 'not', operand: parseUnary(cursor) }));
  }
  if (isPunct(token, '(')) {
    advance(cursor);
    const inner = nested(cursor, token, () => parseOr(cursor));
    const close = peek(cursor);
    if (!isPunct(close, ')')) {
      throw errorAt(cursor, close, `expected ')'`, {
        hint: `to close the '(' of column ${token.offset + 1}; ${found(close)}`,
      });
    }
    advance(cursor);
    return inner;
  }
  if (isKeyword(token, 'true', 'false')) {
    advance(cursor);
    return { kind: 'constant', value: token.text.toLowerCase() === 'true' };
  }
  if (isKeyword(token, 'isempty') && isPunct(peek(cursor, 1), '(')) {
    advance(cursor);
    return { kind: 'isEmpty', field: setFieldArgument(cursor, token) };
  }
  if (token.kind === 'word' && !isKeyword(token, ...NOT_A_CONDITION)) return parsePredicate(cursor);
  throw errorAt(cursor, token, 'expected a condition', { hint: found(token) });
}

/** Runs `parse` one nesting level deeper, refusing to go past MAX_NESTING_DEPTH. */
function nested(cursor: Cursor, opener: Token, parse: () => FilterExpr): FilterExpr {
  if (cursor.depth >= MAX_NESTING_DEPTH) {
    throw errorAt(cursor, opener, `the filter nests deeper than ${MAX_NESTING_DEPTH} levels of '(' and 'not'`);
  }
  cursor.depth++;
  try {
    return parse();
  } finally {
    cursor.depth--;
  }
}

function parseSort(cursor: Cursor): SortKey[] {
  const sortToken = advance(cursor);
  const by = peek(cursor);
  if (!isKeyword(by, 'by')) throw errorAt(cursor, by, `expected 'by' after '${sortToken.text}'`, { hint: found(by) });
  let previous = advance(cursor);
  const keys: SortKey[] = [];
  for (;;) {
    keys.push(parseSortKey(cursor, previous));
    if (!isPunct(peek(cursor), ',')) return keys;
    previous = advance(cursor);
  }
}

function parseSortKey(cursor: Cursor, previous: Token): SortKey {
  const fieldToken = peek(cursor);
  if (fieldToken.kind !== 'word' || isKeyword(fieldToken, 'skip', 'limit')) {
    throw errorAt(cursor, fieldToken, `expected a field name after '${previous.text}'`, { hint: found(fieldToken) });
  }
  lookupField(cursor, fieldToken, 'INVALID_SORT_IDENTIFIER');
  advance(cursor);
  const direction = peek(cursor);
  if (isKeyword(direction, 'asc', 'desc')) {
    advance(cursor);
    return { field: fieldToken.text, direction: direction.text.toLowerCase() as 'asc' | 'desc' };
  }
  if (direction.kind === 'word' && !isKeyword(direction, 'skip', 'limit')) {
    throw errorAt(cursor, direction, `unknown sort direction '${direction.text}' for '${fieldToken.text}'`, {
      code: 'INVALID_SORT_IDENTIFIER',
      hint: 'asc or desc',
    });
  }
  return { field: fieldToken.text, direction: 'asc' };
}

function parseSkip(cursor: Cursor): number {
  const skipToken = advance(cursor);
  const count = peek(cursor);
  if (count.kind !== 'number') throw errorAt(cursor, count, `expected a number after '${skipToken.text}'`, { hint: found(count) });
  if (!Number.isSafeInteger(count.value) || count.value < 0) {
    throw errorAt(cursor, count, `skip must be an integer of 0 or more, not ${count.text}`, { code: 'INVALID_PAGINATION' });
  }
  advance(cursor);
  return count.value;
}

function parseLimit(cursor: Cursor): number | 'none' {
  const limitToken = advance(cursor);
  const count = peek(cursor);
  if (isKeyword(count, 'none')) {
    advance(cursor);
    return 'none';
  }
  if (count.kind !== 'number') {
    throw errorAt(cursor, count, `expected a number or 'none' after '${limitToken.text}'`, { hint: found(count) });
  }
  if (!Number.isInteger(count.value) || count.value === 0 || count.value < -1) {
    throw errorAt(cursor, count, `limit must be a positive integer, -1 or none, not ${count.text}`, {
      code: 'INVALID_PAGINATION',
    });
  }
  advance(cursor);
  return count.value;
}
