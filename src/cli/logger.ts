/**
 * The process logger, on stderr (stdout stays for what the command prints for people): pino JSON lines, or text lines
 * (pino-pretty, decision 0076) when stderr is a terminal, or as `--log-format` / SVC_LOG_FORMAT say. Level from
 * SVC_LOG_LEVEL (default `info`: a line per request). Whatever a log call is given, credentials are redacted: the
 * session and authorization headers, cookies, passwords, tokens and secrets.
 */
import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';
import { LOG_FORMATS, type LogFormat } from './log-formats.js';

export { LOG_FORMATS, type LogFormat };

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


/** The problem with an SVC_LOG_FORMAT value, naming it and the accepted values; undefined when it is fine or unset. */
export function logFormatProblem(value: string | undefined): string | undefined {
  if (value === undefined || value === '' || (LOG_FORMATS as readonly string[]).includes(value)) return undefined;
  return `SVC_LOG_FORMAT: '${value}' is not a log format; expected json or text`;
}

/** The format asked for (`--log-format` sets SVC_LOG_FORMAT), else text on a terminal and JSON for machines. */
export function chooseLogFormat(asked: string | undefined, terminal: boolean): LogFormat {
  if (asked === 'json' || asked === 'text') return asked;
  return terminal ? 'text' : 'json';
}

/**
 * The text stream: pino-pretty in this process, written synchronously so that the last lines before an exit are not
 * lost. Loaded only when asked for: commands that log JSON do not pay for it.
 */
function textDestination(colorize: boolean): DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as (options: Record<string, unknown>) => DestinationStream;
  return pretty({
    destination: 2,
    sync: true,
    colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    // A request reads as a sentence (kit/request-log.ts names these fields); what is left follows on the same line.
    messageFormat: '{msg}{if method} {method} {url} {status} {responseTimeMs} ms{end}{if identity} by {identity}{end}',
    ignore: 'pid,hostname,method,url,status,responseTimeMs,identity',
    singleLine: true,
  });
}

/** The process logger; throws with `logLevelProblem`'s sentence when the level is not one of LOG_LEVELS. */
export function createLogger(level = process.env.SVC_LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  const problem = logLevelProblem(level) ?? logFormatProblem(process.env.SVC_LOG_FORMAT);
  if (problem) throw new Error(problem);
  const terminal = process.stderr.isTTY === true;
  const stream = destination ?? (chooseLogFormat(process.env.SVC_LOG_FORMAT, terminal) === 'text' ? textDestination(terminal) : pino.destination(2));
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, stream);
}
