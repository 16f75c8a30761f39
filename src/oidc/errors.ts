/**
 * The error handler of the OIDC plugin: `{error, error_description}` (RFC 6749 §5.2) for everything under /oidc,
 * including refused credentials at the login endpoints (the ApiError code, lower-cased) and Fastify's own errors
 * (mapped as on the Edge APIs; a malformed request is `invalid_request` with the catalogue status). The description
 * is cut short and kept to the characters RFC 6749 §5.2 allows, whatever the input it quotes.
 * Unexpected errors become 500 server_error, logged, never described to the client.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isApiError } from '../errors/api-error.js';
import type { ErrorCode } from '../errors/catalogue.js';
import { isOAuthError } from '../errors/oauth-error.js';
import { formatChallenge, toApiError } from '../http/kit/errors.js';

const MAX_DESCRIPTION = 512;

/** Refusals of the request's form rather than of what it asks: `invalid_request` (RFC 6749 §5.2). */
const REQUEST_FORM_CODES: ReadonlySet<ErrorCode> = new Set([
  'COULD_NOT_PARSE_BODY',
  'COULD_NOT_PARSE_REQUEST',
  'COULD_NOT_VALIDATE',
  'INVALID_CONTENT_TYPE',
  'REQUEST_ENTITY_TOO_LARGE',
  'URI_TOO_LONG',
  'REQUEST_HEADER_FIELDS_TOO_LARGE',
  'EXPECTATION_FAILED',
]);

/**
 * `text` within the error_description alphabet (RFC 6749 §5.2: %x20-21 / %x23-5B / %x5D-7E): double quotes become
 * single ones, backslashes slashes, `§` (our messages cite RFC sections) `section `, `…` `...`, anything else
 * outside printable ASCII `?`; cut to 512 characters.
 */
export function oauthDescription(text: string): string {
  const cut = text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION)}...` : text;
  return cut
    .replace(/"/g, "'")
    .replace(/\\/g, '/')
    .replace(/§ ?/g, 'section ')
    .replace(/…/g, '...')
    .replace(/[^\x20-\x7e]/g, '?');
}

/** True for the paths the provider serves: the routes of routes.ts all live under these. */
export function isOidcPath(url: string): boolean {
  const path = url.split('?')[0] as string;
  return path === '/oidc' || path.startsWith('/oidc/') || path === '/.well-known/openid-configuration';
}

export function sendOAuthError(reply: FastifyReply, status: number, error: string, description: string): FastifyReply {
  // RFC 6749 §5.1: responses carrying (or refusing) credentials are not cached.
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  return reply.code(status).type('application/json; charset=utf-8').send({ error, error_description: oauthDescription(description) });
}

export function oidcErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (isOAuthError(error)) {
    // RFC 6750 §3.1: a refused Bearer token is answered with a Bearer challenge.
    if (error.error === 'invalid_token') reply.header('www-authenticate', `Bearer error="invalid_token", error_description="${oauthDescription(error.message)}"`);
    return sendOAuthError(reply, error.status, error.error, error.message);
  }
  const apiError = toApiError(error, request);
  if (apiError.code === 'UNHANDLED') {
    request.log.error({ err: error }, 'unhandled error in the OIDC provider');
    return sendOAuthError(reply, 500, 'server_error', 'an unexpected error occurred');
  }
  if (isApiError(error) && error.challenges.length > 0) reply.header('www-authenticate', error.challenges.map(formatChallenge));
  if (apiError.retryAfterSeconds !== undefined) reply.header('retry-after', String(apiError.retryAfterSeconds));
  // RFC 6749 §4.1.2.1's word for a server that cannot answer for now.
  if (apiError.code === 'STORE_UNAVAILABLE') {
    request.log.warn({ err: error }, 'the store could not be reached');
    return sendOAuthError(reply, apiError.status, 'temporarily_unavailable', apiError.message);
  }
  if (apiError.code === 'INVALID_CONTENT_TYPE') {
    return sendOAuthError(reply, apiError.status, 'invalid_request', 'use application/x-www-form-urlencoded or application/json');
  }
  const code = REQUEST_FORM_CODES.has(apiError.code) ? 'invalid_request' : apiError.code.toLowerCase();
  return sendOAuthError(reply, apiError.status, code, apiError.message);
}
