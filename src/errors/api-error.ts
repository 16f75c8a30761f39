/**
 * The error every layer throws for a failure a client caused or must see. It carries a catalogue code;
 * the HTTP layer turns it into `{error: {code, message, requestId, cause}, meta}` with the catalogue status.
 * Services throw it without knowing about HTTP.
 */
import { ERROR_CATALOGUE, type ErrorCode } from './catalogue.js';

/** Where a request went wrong: a field with its reason and the value seen, or a nested error. */
export interface ErrorCause {
  field?: string;
  reason?: string;
  value?: unknown;
  code?: string;
  message?: string;
  [extra: string]: unknown;
}

/** One WWW-Authenticate challenge (RFC 6750 with the spec's extra `id` and `issuer` fields). */
export interface AuthChallenge {
  scheme: string;
  realm: string;
  error: 'missing' | 'invalid' | 'expired';
  description: string;
  id?: string;
  issuer?: string;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  override readonly cause?: ErrorCause;
  readonly challenges: readonly AuthChallenge[];
  /** For 429 and 503: when to try again (the Retry-After header, RFC 9110 §10.2.3). */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, options: { message?: string; cause?: ErrorCause; challenges?: AuthChallenge[]; retryAfterSeconds?: number } = {}) {
    const entry = ERROR_CATALOGUE[code];
    super(options.message ?? entry.message);
    this.name = 'ApiError';
    this.code = code;
    this.status = entry.status;
    this.cause = options.cause;
    this.challenges = options.challenges ?? [];
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** True when `value` is an ApiError (also across duplicated module instances). */
export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError || (value instanceof Error && value.name === 'ApiError' && 'code' in value);
}
