/**
 * The process logger: pino JSON lines on stderr (stdout stays for what the command prints for people).
 * Level from SVC_LOG_LEVEL (default `info`). Headers that carry credentials are redacted.
 */
import pino, { type Logger } from 'pino';

export function createLogger(level = process.env.SVC_LOG_LEVEL ?? 'info'): Logger {
  return pino(
    {
      level,
      redact: { paths: ['req.headers.authorization', 'req.headers["svc-session"]', 'password', '*.password'], censor: '[redacted]' },
    },
    pino.destination(2),
  );
}
