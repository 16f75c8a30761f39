/**
 * Renders every failure of the Edge APIs as `{error: {code, message, requestId, cause}, meta}` with the status
 * from the error catalogue: API errors thrown by services, and Fastify's own (validation, body size, JSON parse).
 * Unexpected errors become 500 UNHANDLED and are logged with their stack, never sent to the client.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, isApiError, type AuthChallenge, type ErrorCause } from '../../errors/api-error.js';
import { uniqueViolationError } from '../../errors/unique-violation.js';

/** One WWW-Authenticate challenge as RFC 6750 writes it, plus the spec's `id` and `issuer` fields. */
export function formatChallenge(c: AuthChallenge): string {
  // Header values must be visible ASCII: quotes and backslashes are escaped, anything else becomes \uXXXX (token
  // values such as `kid` or `iss` are the caller's and may hold any character).
  const quote = (v: string) =>
    `"${v.replace(/["\\]/g, '\\$&').replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
  let text = `${c.scheme} realm=${quote(c.realm)} error=${quote(c.error)} error_description=${quote(c.description)}`;
  if (c.id !== undefined) text += ` id=${quote(c.id)}`;
  if (c.issuer !== undefined) text += ` issuer=${quote(c.issuer)}`;
  return text;
}

/** Sends an ApiError in the envelope, with its WWW-Authenticate headers. */
export function sendApiError(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  if (error.challenges.length > 0) reply.header('www-authenticate', error.challenges.map(formatChallenge));
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  const body: Record<string, unknown> = { code: error.code, message: error.message, requestId: String(request.id) };
  if (error.cause) body.cause = error.cause;
  return reply.code(error.status).type('application/json; charset=utf-8').send({ error: body, meta: {} });
}

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** The field an Ajv validation error is about, dotted (`body.username`, `query.limit`). */
function validationCause(context: string | undefined, issue: AjvIssue, input: unknown): ErrorCause {
  const segments = issue.instancePath.split('/').filter(Boolean);
  if (issue.keyword === 'required') segments.push(String(issue.params.missingProperty));
  if (issue.keyword === 'additionalProperties') segments.push(String(issue.params.additionalProperty));
  const where = context === 'querystring' ? 'query' : (context ?? 'body');
  const field = segments.join('.');
  let value: unknown = input;
  for (const s of issue.instancePath.split('/').filter(Boolean)) value = (value as Record<string, unknown> | undefined)?.[s];
  const reason =
    issue.keyword === 'additionalProperties' ? 'is not a known field' : issue.keyword === 'required' ? 'is required' : (issue.message ?? 'is invalid');
  return { field: field || where, reason: `${where}${field ? `.${field}` : ''} ${reason}`, value: issue.keyword === 'required' ? undefined : value, in: where };
}

/** Maps an error Fastify raised (or a handler threw) to an ApiError. */
export function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  if (isApiError(error)) return error;
  const duplicate = uniqueViolationError(error);
  if (duplicate) return duplicate;
  if (error.validation && error.validation.length > 0) {
    const context = error.validationContext;
    const input = context === 'querystring' ? request.query : context === 'params' ? request.params : context === 'headers' ? request.headers : request.body;
    const cause = validationCause(context, error.validation[0] as AjvIssue, input);
    return new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: ${cause.reason}`, cause });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('REQUEST_ENTITY_TOO_LARGE', { message: 'The request body exceeds the maximum accepted size of 1 MiB' });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('INVALID_CONTENT_TYPE', {
        message: `The content type ${JSON.stringify(request.headers['content-type'] ?? '')} is not accepted here`,
      });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('COULD_NOT_PARSE_BODY', { message: 'The body is empty but its content type says JSON' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('COULD_NOT_PARSE_BODY', { message: 'The body length does not match the Content-Length header' });
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new ApiError('COULD_NOT_PARSE_BODY', { message: `The body is not valid JSON: ${error.message}` });
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError('COULD_NOT_VALIDATE', { message: error.message });
  }
  return new ApiError('UNHANDLED');
}

export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const apiError = toApiError(error, request);
  if (apiError.code === 'UNHANDLED') request.log.error({ err: error }, 'unhandled error');
  return sendApiError(request, reply, apiError);
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply) {
  return sendApiError(request, reply, new ApiError('NOT_FOUND', { message: `No operation at ${request.method} ${request.url.split('?')[0]}` }));
}
