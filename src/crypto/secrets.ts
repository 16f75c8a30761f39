/**
 * Hashing and comparison of bearer secrets (session tokens, later refresh tokens): only the SHA-256 of a
 * token is stored, so a leaked database yields no usable credential; comparisons are constant-time.
 */
import { hash, timingSafeEqual } from 'node:crypto';

/** Hex SHA-256 of a secret token, the form it is stored and looked up in. */
export function hashToken(token: string): string {
  // The one-shot form: every authenticated request hashes its token, and a Hash object costs three times as much.
  return hash('sha256', token, 'hex');
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
