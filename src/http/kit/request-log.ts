/**
 * The request log of a listener: one `info` line for every answered request (method, route pattern, URL with secrets
 * in its query blanked, status, time, and the caller's identity when it authenticated); a request refused for want of
 * a valid credential (401) says the reason too. Credentials never reach a log line: headers are not logged at all, and query values
 * whose names say they carry a secret (`token`, `password`, `code`, …) are replaced.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiError } from '../../errors/api-error.js';
import type { AuthContext } from '../../services/authentication/request-auth.js';

/** Query parameter names whose values are credentials (OIDC `code`, `id_token_hint`, enrollment `token`, …). */
const SECRET_QUERY = /^(.*token.*|.*password.*|.*secret.*|code|jwt|assertion|otp|key)$/i;

export const REDACTED = '[redacted]';

/** `url` with the values of secret-bearing query parameters replaced by `[redacted]`; the path is kept. */
export function redactUrl(url: string): string {
  const mark = url.indexOf('?');
  if (mark < 0) return url;
  const query = url
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const rawName = equals < 0 ? pair : pair.slice(0, equals);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // A malformed escape in a name: judge it as written.
      }
      return equals >= 0 && SECRET_QUERY.test(name) ? `${rawName}=${REDACTED}` : pair;
    })
    .join('&');
  return `${url.slice(0, mark)}?${query}`;
}

// Why a request was refused, noted where the error is rendered so the log line can say it without parsing the body.
const refusals = new WeakMap<FastifyRequest, { code: string; message: string }>();

/** Remembers the API error a request is answered with, for its log line. */
export function noteRefusal(request: FastifyRequest, error: ApiError): void {
  refusals.set(request, { code: error.code, message: error.message });
}

/** Pino's level numbers: a logger at `current` writes lines at `level` when its number is no lower. */
const LEVEL_NUMBERS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };
const writes = (current: string, level: 'debug' | 'info') => (LEVEL_NUMBERS[current] ?? 0) <= (LEVEL_NUMBERS[level] as number);

/** Who made a request, as the log names them: the identity's name, and its id beside it. */
const callerOf = (auth: AuthContext | undefined) => (auth ? { identity: auth.identity.name, identityId: auth.identity.id } : {});

/** What the log says of an answered request: method, route pattern, URL with secrets blanked, status, time, caller. */
function answerLine(method: string, route: string | undefined, url: string, status: number, elapsedMs: number, auth: AuthContext | undefined) {
  return { method, route: route ?? 'unrouted', url: redactUrl(url), status, responseTimeMs: Math.round(elapsedMs * 10) / 10, ...callerOf(auth) };
}

/** The line of a request answered by the memory lane (decision 0042), as the hook below writes it for others. */
export function logLaneAnswer(log: Pick<FastifyBaseLogger, 'level' | 'info'>, requestId: string, route: string, url: string, elapsedMs: number, auth: AuthContext): void {
  if (writes(log.level, 'info')) log.info({ requestId, ...answerLine('GET', route, url, 200, elapsedMs, auth) }, 'request');
}

/**
 * The request log, for a listener's `onResponse` hook (its logger is the listener's child of the process logger):
 * a line per request at info. The line is built only at a level that writes it.
 */
export function requestLogLine(): (request: FastifyRequest, reply: FastifyReply) => void {
  return (request, reply) => {
    if (!writes(request.log.level, 'info')) return;
    const line = answerLine(request.method, request.routeOptions.url, request.url, reply.statusCode, reply.elapsedTime, request.svcAuth);
    const refusal = reply.statusCode === 401 ? refusals.get(request) : undefined;
    if (reply.statusCode === 401) request.log.info({ ...line, ...(refusal ? { reason: refusal.code, detail: refusal.message } : {}) }, 'request not authenticated');
    else request.log.info(line, 'request');
  };
}
