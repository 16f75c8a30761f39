/**
 * Wording Node's file-system errors for diagnostics that name the file themselves. Pure.
 */

/**
 * The message of a failed file-system call without the `, <syscall> '<path>'` Node ends it with, so the path is said
 * once, by the caller. Cut by comparing the ending it must have (linear in the message) rather than with a pattern:
 * `/, \w+ '.*'$/` tried every `, x '` in the message, which a long path full of them made quadratic.
 *
 * @example
 * await access('/missing').catch((error) => reasonOf(error)) // 'ENOENT: no such file or directory'
 */
export function reasonOf(error: unknown): string {
  const { message, syscall, path } = (error ?? {}) as { message?: unknown; syscall?: unknown; path?: unknown };
  const text = String(message);
  if (typeof syscall !== 'string' || typeof path !== 'string') return text;
  const ending = `, ${syscall} '${path}'`;
  return text.endsWith(ending) ? text.slice(0, -ending.length) : text;
}
