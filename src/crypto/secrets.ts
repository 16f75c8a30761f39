/**
 * Hashing and comparison of bearer secrets (session tokens, later refresh tokens): only the SHA-256 of a
 * token is stored, so a leaked database yields no usable credential; comparisons are constant-time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** Hex SHA-256 of a secret token, the form it is stored and looked up in. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time equality of two strings (false when lengths differ, without early exit on content). */
export function secretsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
