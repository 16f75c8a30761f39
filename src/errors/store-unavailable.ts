/**
 * Recognises a store that cannot be reached or is not answering (issue 17, faults: "requests that need the store fail
 * with 503 in the envelope"), so that such a request answers 503 with Retry-After instead of 500, and the controller
 * needs no restart: the pool opens new connections once the store is back.
 *
 * PostgreSQL: SQLSTATE class 08 (connection exception), 57P01-57P03 (the server shutting down or starting), 53300
 * (too many connections); the socket errors of a server that is gone; pg's own words for a connection lost or not
 * made in time. SQLite: SQLITE_BUSY once its busy timeout has passed (another process holds the write lock), and
 * SQLITE_WRITER_GONE for a write the writer thread was running when it stopped (sqlite-writer.ts).
 */
import { ApiError } from './api-error.js';

const SQLSTATES = /^(?:08[0-9A-Z]{3}|57P0[123]|53300)$/;
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'SQLITE_BUSY', 'SQLITE_WRITER_GONE']);
const PG_MESSAGES = /^(?:Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end)/;

/** Seconds a client is asked to wait before trying again. */
const RETRY_AFTER_SECONDS = 1;

/** True when `error` says the store could not be reached or did not answer, rather than refused the request. */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SQLSTATES.test(code))) return true;
  if (PG_MESSAGES.test(error.message)) return true;
  // pg wraps some failures (an AggregateError of every address tried, an error as `cause`).
  const inner = error instanceof AggregateError ? error.errors : [error.cause];
  return inner.some((cause) => cause !== error && isStoreUnavailable(cause));
}

/** The 503 for a request that needed the store while it could not be reached. */
export function storeUnavailableError(): ApiError {
  return new ApiError('STORE_UNAVAILABLE', { retryAfterSeconds: RETRY_AFTER_SECONDS });
}
