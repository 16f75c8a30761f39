/**
 * Renders every failure of the Edge APIs as `{error: {code, message, requestId, cause}, meta}` with the status
 * from the error catalogue: API errors thrown by services, and Fastify's own (validation, body size, JSON parse,
 * bad URLs). Whatever an error carries, rendering is bounded: messages and cause texts are printable and cut short,
 * and `cause.value` is an excerpt of at most 64 characters (errors/excerpt.ts), so no input can make the answer
 * huge, throw, or overflow the stack. Unexpected errors become 500 UNHANDLED and are logged with their stack, never
 * sent to the client.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, isApiError, type AuthChallenge, type ErrorCause } from '../../errors/api-error.js';
import { ERROR_CATALOGUE, type ErrorCode } from '../../errors/catalogue.js';
import { printable, renderCause } from '../../errors/excerpt.js';
import { storeValueError } from '../../errors/store-value.js';
import { isStoreUnavailable, storeUnavailableError } from '../../errors/store-unavailable.js';
import { uniqueViolationError } from '../../errors/unique-violation.js';
import { noteRefusal } from './request-log.js';

/**
 * `"value"` as an HTTP quoted-string: quotes and backslashes escaped, anything but visible ASCII as \uXXXX (header
 * values must be ASCII; token values such as `kid` or `iss` are the caller's and may hold any character).
 */
export function quoteHeaderValue(value: string): string {
  const text = value.length > 512 ? `${value.slice(0, 512)}...` : value;
  return `"${text.replace(/["\\]/g, '\\$&').replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

/** One WWW-Authenticate challenge as RFC 6750 writes it, plus the spec's `id` and `issuer` fields. */
export function formatChallenge(c: AuthChallenge): string {
  const quote = quoteHeaderValue;
  let text = `${c.scheme} realm=${quote(c.realm)} error=${quote(c.error)} error_description=${quote(c.description)}`;
  if (c.id !== undefined) text += ` id=${quote(c.id)}`;
  if (c.issuer !== undefined) text += ` issuer=${quote(c.issuer)}`;
  return text;
}

/** The JSON error body of `error`, bounded whatever it carries. */
export function errorBody(error: ApiError, requestId: string): { error: Record<string, unknown>; meta: Record<string, never> } {
  const body: Record<string, unknown> = { code: error.code, message: printable(error.message), requestId };
  if (error.cause !== undefined) body.cause = renderCause(error.cause);
  return { error: body, meta: {} };
}

/** Sends an ApiError in the envelope, with its WWW-Authenticate headers. */
export function sendApiError(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  noteRefusal(request, error);
  if (error.challenges.length > 0) reply.header('www-authenticate', error.challenges.map(formatChallenge));
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  return reply.code(error.status).type('application/json; charset=utf-8').send(errorBody(error, String(request.id)));
}

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/**
 * The first issue, or, when it is one branch of a union of literals (TypeBox's `Union([Literal('Dial'), …])` fails as
 * one `const` issue per branch), an `enum` issue with every literal the value could have been, so the refusal names
 * them as it does for a plain enumeration.
 */
function enumIssueOf(issues: AjvIssue[]): AjvIssue {
  const first = issues[0] as AjvIssue;
  if (first.keyword !== 'const') return first;
  const branches = issues.filter((i) => i.keyword === 'const' && i.instancePath === first.instancePath);
  if (branches.length < 2) return first;
  return { ...first, keyword: 'enum', params: { allowedValues: branches.map((i) => i.params.allowedValue) } };
}

/** The field an Ajv validation error is about, dotted (`body.username`, `query.limit`). */
function validationCause(context: string | undefined, issue: AjvIssue, input: unknown): ErrorCause {
  // JSON Pointer segments (RFC 6901 §4): `~1` is `/`, `~0` is `~`.
  const pointer = issue.instancePath.split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const segments = [...pointer];
  if (issue.keyword === 'required') segments.push(String(issue.params.missingProperty));
  if (issue.keyword === 'additionalProperties') segments.push(String(issue.params.additionalProperty));
  const where = context === 'querystring' ? 'query' : (context ?? 'body');
  const field = segments.join('.');
  let value: unknown = input;
  for (const s of pointer) {
    // Own properties only: a segment such as `constructor` must not reach into a prototype.
    value = value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, s) ? (value as Record<string, unknown>)[s] : undefined;
  }
  const reason =
    issue.keyword === 'additionalProperties'
      ? 'is not a known field'
      : issue.keyword === 'required'
        ? 'is required'
        : issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues)
          ? // Ajv says only "must be equal to one of the allowed values": name them, so the caller need not look them up.
            `must be one of ${issue.params.allowedValues.map(String).join(', ')}`
          : (issue.message ?? 'is invalid');
  return { field: field || where, reason: `${where}${field ? `.${field}` : ''} ${reason}`, value: issue.keyword === 'required' ? undefined : value, in: where };
}

/** The catalogue code for a 4xx status Fastify or Node gave an error of its own. */
const CODE_BY_STATUS: Partial<Record<number, ErrorCode>> = {
  400: 'COULD_NOT_VALIDATE',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  408: 'REQUEST_TIMEOUT',
  413: 'REQUEST_ENTITY_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'INVALID_CONTENT_TYPE',
  417: 'EXPECTATION_FAILED',
  431: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
};

/** Body types some part of a listener may parse; a 415 names those the request's app really has a parser for. */
const KNOWN_CONTENT_TYPES = ['application/json', 'application/x-www-form-urlencoded', 'application/x-pem-file', 'application/pkcs10', 'text/plain'];

/** The content types the app serving `request` parses (JSON first: what the APIs' bodies are). */
export function acceptedContentTypes(request: FastifyRequest): string[] {
  return KNOWN_CONTENT_TYPES.filter((type) => request.server.hasContentTypeParser(type));
}

/** Maps an error Fastify raised (or a handler threw) to an ApiError. */
export function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  if (isApiError(error)) return error;
  const duplicate = uniqueViolationError(error) ?? storeValueError(error);
  if (duplicate) return duplicate;
  if (error.validation && error.validation.length > 0) {
    const context = error.validationContext;
    const input = context === 'querystring' ? request.query : context === 'params' ? request.params : context === 'headers' ? request.headers : request.body;
    const cause = validationCause(context, enumIssueOf(error.validation as AjvIssue[]), input);
    return new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: ${cause.reason}`, cause });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('REQUEST_ENTITY_TOO_LARGE', { message: 'The request body exceeds the maximum accepted size of 1 MiB' });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': {
      const accepted = acceptedContentTypes(request);
      const given = request.headers['content-type'] ?? '';
      return new ApiError('INVALID_CONTENT_TYPE', {
        message: `The content type ${JSON.stringify(given)} is not accepted here; use one of: ${accepted.join(', ')}`,
        cause: { field: 'content-type', reason: `accepted content types: ${accepted.join(', ')}`, value: given, in: 'headers' },
      });
    }
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('COULD_NOT_PARSE_BODY', { message: 'The body is empty but its content type says JSON' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('COULD_NOT_PARSE_BODY', { message: 'The body length does not match the Content-Length header' });
    case 'FST_ERR_BAD_URL':
      return new ApiError('COULD_NOT_PARSE_REQUEST', { message: 'The URL is not valid: a path segment has a bad percent-encoding' });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('URI_TOO_LONG', { message: 'A path parameter is longer than the 100 characters accepted' });
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new ApiError('COULD_NOT_PARSE_BODY', { message: `The body is not valid JSON: ${error.message}` });
  }
  if (isStoreUnavailable(error)) return storeUnavailableError();
  const status = error.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code = CODE_BY_STATUS[status] ?? 'COULD_NOT_VALIDATE';
    return new ApiError(code, { message: typeof error.message === 'string' && error.message ? error.message : ERROR_CATALOGUE[code].message });
  }
  return new ApiError('UNHANDLED');
}

export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const apiError = toApiError(error, request);
  if (apiError.code === 'UNHANDLED') request.log.error({ err: error }, 'unhandled error');
  else if (apiError.code === 'STORE_UNAVAILABLE') request.log.warn({ err: error }, 'the store could not be reached');
  // A refused value is the client's doing, but it also means a request check upstream is missing: keep it visible.
  else if (storeValueError(error)) request.log.warn({ err: error }, 'the store refused a value from a request');
  return sendApiError(request, reply, apiError);
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply) {
  return sendApiError(request, reply, new ApiError('NOT_FOUND', { message: `No operation at ${request.method} ${request.url.split('?')[0]}` }));
}
