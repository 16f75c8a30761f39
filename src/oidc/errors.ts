/**
 * The error handler of the OIDC plugin: `{error, error_description}` (RFC 6749 §5.2) for everything under /oidc,
 * including refused credentials at the login endpoints (the ApiError code, lower-cased) and Fastify's own errors.
 * Unexpected errors become 500 server_error, logged, never described to the client.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isApiError } from '../errors/api-error.js';
import { isOAuthError } from '../errors/oauth-error.js';
import { formatChallenge } from '../http/kit/errors.js';

export function sendOAuthError(reply: FastifyReply, status: number, error: string, description: string): FastifyReply {
  // RFC 6749 §5.1: responses carrying (or refusing) credentials are not cached.
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  return reply.code(status).type('application/json; charset=utf-8').send({ error, error_description: description });
}

export function oidcErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (isOAuthError(error)) {
    // RFC 6750 §3.1: a refused Bearer token is answered with a Bearer challenge.
    if (error.error === 'invalid_token') reply.header('www-authenticate', `Bearer error="invalid_token", error_description="${error.message}"`);
    return sendOAuthError(reply, error.status, error.error, error.message);
  }
  if (isApiError(error)) {
    if (error.challenges.length > 0) reply.header('www-authenticate', error.challenges.map(formatChallenge));
    if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
    return sendOAuthError(reply, error.status, error.code.toLowerCase(), error.message);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return sendOAuthError(reply, 413, 'invalid_request', 'the request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return sendOAuthError(reply, 415, 'invalid_request', 'use application/x-www-form-urlencoded or application/json');
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return sendOAuthError(reply, 400, 'invalid_request', error instanceof SyntaxError ? 'the body could not be parsed' : error.message);
  }
  request.log.error({ err: error }, 'unhandled error in the OIDC provider');
  return sendOAuthError(reply, 500, 'server_error', 'an unexpected error occurred');
}
