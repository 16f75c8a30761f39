/**
 * The errors a listener raises itself, in the envelope rather than as Node's or Fastify's plain answers:
 * - the request-head limit (16 KiB for the request line and header fields) checked once the route is known, so the
 *   answer (414 URI_TOO_LONG or 431 REQUEST_HEADER_FIELDS_TOO_LARGE) takes the route's error shape (the OIDC
 *   provider's included), the Host header HTTP/1.1 requires, and no U+0000 (`%00`) in the URL;
 * - what Node's HTTP parser refuses before any route is known (malformed framing, a head past the socket's 64 KiB
 *   read limit, a head or body not received in time): written to the socket in the envelope, then the connection
 *   is closed, as Node itself would (the route is unknown there, so the provider's paths get the envelope too);
 * - an `Expect` header other than 100-continue: 417 EXPECTATION_FAILED in the envelope.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/api-error.js';
import { errorBody } from './errors.js';

/** The request line and header fields a route accepts, in bytes (Node's own default limit). */
export const MAX_REQUEST_HEAD_BYTES = 16 * 1024;
/**
 * What the socket reads of a request head before refusing it unrouted. Above MAX_REQUEST_HEAD_BYTES so that most
 * oversized heads reach the route check and get the route's error shape.
 */
export const SOCKET_MAX_HEADER_BYTES = 64 * 1024;

/** onRequest: refuses a head over MAX_REQUEST_HEAD_BYTES (414 or 431), HTTP/1.1 without Host, and `%00` in the URL. */
export function checkRequestHead(request: Pick<FastifyRequest, 'raw' | 'originalUrl'>): void {
  const raw = request.raw;
  // Header values are read as latin1 and URLs are ASCII, so characters count bytes. `originalUrl` is the URL as sent,
  // before the client API's root paths are rewritten.
  const line = (raw.method ?? '').length + request.originalUrl.length + 11; // ` ` + ` HTTP/1.1\r\n`
  if (line > MAX_REQUEST_HEAD_BYTES) {
    throw new ApiError('URI_TOO_LONG', { message: `The request line is longer than the ${MAX_REQUEST_HEAD_BYTES / 1024} KiB accepted` });
  }
  let head = line;
  const fields = raw.rawHeaders;
  let hasHost = false;
  // `name: value\r\n`: each name and each value is followed by two bytes. Host is looked for in the same pass, rather
  // than through `raw.headers`, which Node builds on first read and nothing else on the SDKs' polling routes needs.
  for (let at = 0; at < fields.length; at++) {
    const field = fields[at] as string;
    head += field.length + 2;
    if (at % 2 === 0 && field.length === 4 && field.toLowerCase() === 'host') hasHost = true;
  }
  if (head > MAX_REQUEST_HEAD_BYTES) {
    throw new ApiError('REQUEST_HEADER_FIELDS_TOO_LARGE', {
      message: `The request line and header fields are larger than the ${MAX_REQUEST_HEAD_BYTES / 1024} KiB accepted`,
    });
  }
  // RFC 9112 §3.2: a server MUST answer 400 to an HTTP/1.1 request without Host (Node's own answer has no body).
  if (raw.httpVersionMajor === 1 && raw.httpVersionMinor === 1 && !hasHost) {
    throw new ApiError('COULD_NOT_PARSE_REQUEST', { message: 'An HTTP/1.1 request needs a Host header (RFC 9112 §3.2)' });
  }
  // U+0000 can only arrive in a URL percent-encoded. No parameter accepts it (nor do JSON strings): PostgreSQL text
  // cannot hold it, and refusing it here answers the same on both stores.
  if (/%00/i.test(request.originalUrl)) {
    throw new ApiError('COULD_NOT_VALIDATE', { message: 'The URL holds an encoded U+0000 (%00), which no path or query parameter accepts' });
  }
}

/** The ApiError for an error Node's HTTP parser raised before any route was known. */
export function clientApiError(error: { code?: unknown }): ApiError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ApiError('REQUEST_TIMEOUT', { message: 'The request was not received in time' });
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError('REQUEST_HEADER_FIELDS_TOO_LARGE', {
      message: `The request line and header fields are larger than the ${SOCKET_MAX_HEADER_BYTES / 1024} KiB the server reads`,
    });
  }
  const code = typeof error.code === 'string' && /^[A-Z_]{1,40}$/.test(error.code) ? ` (${error.code})` : '';
  return new ApiError('COULD_NOT_PARSE_REQUEST', { message: `The request is not well-formed HTTP${code}` });
}

/** Headers every answer carries (server, instance id), besides the request id. */
export type StandardHeaders = () => Record<string, string>;

/** A whole HTTP/1.1 response with `error` in the envelope, for writing straight to a socket; it closes the connection. */
export function rawErrorResponse(error: ApiError, requestId: string, headers: Record<string, string>): string {
  const body = JSON.stringify(errorBody(error, requestId));
  const lines = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
    `svc-request-id: ${requestId}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * The listener's `clientError` handler: answers in the envelope when the socket can still take an answer, then
 * ends the connection. Ending (rather than destroying) lets the client read the answer before the close.
 */
export function clientErrorHandler(headers: StandardHeaders, newRequestId: () => string) {
  // Data still arriving after the answer reaches the failed parser again and raises the error again: the socket is
  // answered once, and then left to finish sending that answer.
  const answered = new WeakSet<Duplex>();
  return (error: Error & { code?: unknown }, socket: Duplex): void => {
    if (socket.destroyed || answered.has(socket)) return;
    // Only the HTTP parser's refusals and deadlines can be answered in HTTP. The others, TLS ones above all (an
    // https server forwards a handshake timeout here; nothing can be written before the handshake), end the
    // connection as Node would. So does a response already begun on it.
    const http = typeof error.code === 'string' && (error.code.startsWith('HPE_') || error.code === 'ERR_HTTP_REQUEST_TIMEOUT');
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!http || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    answered.add(socket);
    socket.end(rawErrorResponse(clientApiError(error), newRequestId(), headers()));
  };
}

/** The listener's `checkExpectation` handler: 417 in the envelope for any Expect but 100-continue (RFC 9110 §10.1.1). */
export function expectationHandler(headers: StandardHeaders, newRequestId: () => string) {
  return (_request: IncomingMessage, response: ServerResponse): void => {
    const requestId = newRequestId();
    const error = new ApiError('EXPECTATION_FAILED', { message: 'Only "Expect: 100-continue" is understood' });
    const body = JSON.stringify(errorBody(error, requestId));
    response.writeHead(error.status, { ...headers(), 'svc-request-id': requestId, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
    response.end(body);
  };
}
