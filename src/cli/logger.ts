/**
 * The process logger: pino JSON lines on stderr (stdout stays for what the command prints for people).
 * Level from SVC_LOG_LEVEL (default `info`; `debug` adds a line per request). Whatever a log call is given,
 * credentials are redacted: the session and authorization headers, cookies, passwords, tokens and secrets.
 */
import pino, { type DestinationStream, type Logger } from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Paths pino blanks in every line (request and reply objects as Fastify's serializers give them, and plain fields). */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["svc-session"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers["svc-session"]',
  'headers.cookie',
  'password',
  '*.password',
  'token',
  '*.token',
  'secret',
  '*.secret',
];

/** The problem with an SVC_LOG_LEVEL value, naming it and the accepted values; undefined when it is fine or unset. */
export function logLevelProblem(value: string | undefined): string | undefined {
  if (value === undefined || (LOG_LEVELS as readonly string[]).includes(value)) return undefined;
  return `SVC_LOG_LEVEL: '${value}' is not a log level; expected one of ${LOG_LEVELS.join(', ')}`;
}

/** The process logger; throws with `logLevelProblem`'s sentence when the level is not one of LOG_LEVELS. */
export function createLogger(level = process.env.SVC_LOG_LEVEL ?? 'info', destination: DestinationStream = pino.destination(2)): Logger {
  const problem = logLevelProblem(level);
  if (problem) throw new Error(problem);
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
}
