/**
 * What an authenticator app does, for tests: reads the provisioning URL the controller handed out and computes the
 * code of a moment with an independent TOTP implementation (otpauth's URI parser and generator).
 */
import { URI, TOTP } from 'otpauth';
import { manualClock } from '../../src/shared/clock.js';

/** The code an authenticator app shows at `at` for `provisioningUrl`. */
export function totpCode(provisioningUrl: string, at: Date): string {
  const otp = URI.parse(provisioningUrl);
  if (!(otp instanceof TOTP)) throw new Error(`not a TOTP provisioning URL: ${provisioningUrl}`);
  return otp.generate({ timestamp: at.getTime() });
}

/** A six-digit code that is not the valid one at `at` (nor the neighbouring steps). */
export function wrongTotpCode(provisioningUrl: string, at: Date): string {
  const valid = new Set([-30_000, 0, 30_000].map((offset) => totpCode(provisioningUrl, new Date(at.getTime() + offset))));
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, '0');
    if (!valid.has(candidate)) return candidate;
  }
}

/**
 * A manual clock for tests that start a controller and compute TOTP codes: it starts from the real time (the test
 * PKI is issued at real time, so a pinned calendar date would fall outside its certificates one day), moved to 5 s
 * into the next 30 s TOTP step so that a test has a whole step before its codes change.
 */
export function totpTestClock(): ReturnType<typeof manualClock> {
  const step = 30_000;
  return manualClock(new Date((Math.floor(Date.now() / step) + 1) * step + 5_000));
}
