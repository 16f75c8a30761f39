/**
 * Builds the ApiErrors of the list-query language so every failure reads the same way:
 * `filter: <what was wrong> at column <n> (<hint>)`, with the same text, the filter and the column in `cause`.
 */
import { ApiError } from '../../errors/api-error.js';
import type { ErrorCode } from '../../errors/catalogue.js';

type FilterErrorCode = Extract<ErrorCode, 'INVALID_FILTER' | 'INVALID_PAGINATION' | 'INVALID_SORT_IDENTIFIER'>;

/** Where in the filter text a problem sits: the filter itself and a 0-based character offset into it. */
export interface FilterLocation {
  text: string;
  offset: number;
}

/**
 * An error about the filter text at `location`. The message reports the 1-based column because that is
 * what people count in an editor; `hint` goes after the column, in parentheses.
 */
export function filterError(
  location: FilterLocation,
  reason: string,
  options: { code?: FilterErrorCode; hint?: string } = {},
): ApiError {
  const column = location.offset + 1;
  const message = `filter: ${reason} at column ${column}${options.hint ? ` (${options.hint})` : ''}`;
  return new ApiError(options.code ?? 'INVALID_FILTER', {
    message,
    cause: { field: 'filter', reason: message, value: location.text, position: column },
  });
}

/** An error about one plain query parameter (`limit`, `offset`, `sort`), naming it and the value seen. */
export function paramError(code: FilterErrorCode, field: string, value: unknown, reason: string, hint?: string): ApiError {
  const message = `${field}: ${reason}${hint ? ` (${hint})` : ''}`;
  return new ApiError(code, { message, cause: { field, reason: message, value } });
}

/** "did you mean 'x'? fields: a, b, c" — the hint for a name that is not in the field map. */
export function unknownNameHint(suggestion: string | undefined, known: readonly string[]): string {
  const list = `fields: ${known.join(', ')}`;
  return suggestion ? `did you mean '${suggestion}'? ${list}` : list;
}

/** How a token reads in a message: `'name'`, or `the end of the filter`. */
export function describeToken(text: string): string {
  return text === '' ? 'the end of the filter' : `'${text}'`;
}
