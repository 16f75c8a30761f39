/**
 * Recognises a unique-constraint violation from either store and names the field it is about, so that two
 * requests racing to create the same name get the same 400 as a request that loses a plain check.
 * SQLite: code `SQLITE_CONSTRAINT_UNIQUE`, message `UNIQUE constraint failed: identities.name`.
 * PostgreSQL: code `23505`, detail `Key (name)=(alice) already exists.`
 */
import { ApiError } from './api-error.js';

const camel = (column: string) => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** The API error for a unique violation, or undefined when `error` is something else. */
export function uniqueViolationError(error: unknown): ApiError | undefined {
  const e = error as { code?: unknown; message?: unknown; detail?: unknown } | null;
  if (!e || typeof e !== 'object') return undefined;
  let column: string | undefined;
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' && typeof e.message === 'string') column = /UNIQUE constraint failed: \w+\.(\w+)/.exec(e.message)?.[1];
  else if (e.code === '23505' && typeof e.detail === 'string') column = /Key \(([\w, ]+)\)=/.exec(e.detail)?.[1];
  else return undefined;
  const field = camel(column ?? 'value');
  return new ApiError('COULD_NOT_VALIDATE', { message: `${field} is already in use`, cause: { field, reason: 'is already in use' } });
}
