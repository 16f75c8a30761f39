/**
 * Recognises a PostgreSQL refusal of a value the request supplied, so that it answers 400 rather than 500 whatever
 * check upstream let it through: SQLSTATE class 22 "data exception" (a character the encoding cannot hold such as
 * U+0000, a number out of range, a string too long for its column) and 54000 "program limit exceeded" (a value too
 * large for an index). SQLite stores such values as they are, so only PostgreSQL raises these.
 */
import { ApiError } from './api-error.js';

/** The API error for a refused value, or undefined when `error` is something else. */
export function storeValueError(error: unknown): ApiError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^(?:22[0-9A-Z]{3}|54000)$/.test(code)) return undefined;
  // Needs both: pg errors carry `severity`, which tells them apart from other errors with a string code.
  if (typeof (error as { severity?: unknown }).severity !== 'string') return undefined;
  return new ApiError('COULD_NOT_VALIDATE', {
    message: 'A value in the request cannot be stored (too large, out of range, or holding a character the store refuses)',
    cause: { reason: 'refused by the store', code },
  });
}
