/**
 * TOTP (RFC 6238) as the controller uses it: HMAC-SHA1, six digits, 30-second steps, and a window of one step
 * either side of now for clock skew (so a code is accepted for 60 to 90 seconds). Also the shapes of the codes a
 * user may type (a TOTP code or a recovery code), the provisioning URL and new recovery codes. Pure: the caller
 * brings the time and stores which step was last used, which is what refuses replays.
 */
import { Secret, TOTP } from 'otpauth';
import { newRandomBytes } from '../shared/random.js';

export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of the current one. */
export const TOTP_WINDOW = 1;
export const RECOVERY_CODE_COUNT = 20;
export const RECOVERY_CODE_LENGTH = 6;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const TOTP_CODE = /^\d{6}$/;
const RECOVERY_CODE = /^[A-Z2-7]{6}$/;

/** What a typed code is, after trimming: a TOTP code, a recovery code (case-insensitive), or neither. */
export type TypedCode = { kind: 'totp'; code: string } | { kind: 'recovery'; code: string } | { kind: 'malformed' };

export function classifyCode(typed: string): TypedCode {
  const code = typed.trim();
  if (TOTP_CODE.test(code)) return { kind: 'totp', code };
  if (RECOVERY_CODE.test(code.toUpperCase())) return { kind: 'recovery', code: code.toUpperCase() };
  return { kind: 'malformed' };
}

/** A new shared secret: 160 random bits (RFC 4226 §4 recommends 160), base32 without padding. */
export function newTotpSecret(): string {
  return new Secret({ buffer: newRandomBytes(20).buffer as ArrayBuffer }).base32;
}

const totpOf = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret), digits: TOTP_DIGITS, period: TOTP_STEP_SECONDS, algorithm: 'SHA1' });

/** The time step `at` falls in. */
export const totpStep = (at: Date) => Math.floor(at.getTime() / 1000 / TOTP_STEP_SECONDS);

/** The step whose code `code` is, within the window around `now`, or null (compared in constant time by otpauth). */
export function matchingStep(secret: string, code: string, now: Date): number | null {
  const delta = totpOf(secret).validate({ token: code, timestamp: now.getTime(), window: TOTP_WINDOW });
  return delta === null ? null : totpStep(now) + delta;
}

/** The code of `secret` at `at` (for tests and diagnostics). */
export function totpCodeAt(secret: string, at: Date): string {
  return totpOf(secret).generate({ timestamp: at.getTime() });
}

/** Spec: `otpauth://totp/<name>?issuer=<host>&secret=<SECRET>`. */
export function provisioningUrl(name: string, issuer: string, secret: string): string {
  return `otpauth://totp/${encodeURIComponent(name)}?issuer=${encodeURIComponent(issuer)}&secret=${secret}`;
}

/**
 * Twenty single-use recovery codes of six base32 characters. Each holds at least one letter, so a recovery code
 * can never be mistaken for a (numeric) TOTP code.
 */
export function newRecoveryCodes(): string[] {
  const codes = new Set<string>();
  while (codes.size < RECOVERY_CODE_COUNT) {
    const code = [...newRandomBytes(RECOVERY_CODE_LENGTH)].map((byte) => BASE32[byte % 32]).join('');
    if (/[A-Z]/.test(code)) codes.add(code);
  }
  return [...codes];
}
