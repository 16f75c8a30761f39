/**
 * What an authenticator app does, for tests: reads the provisioning URL the controller handed out and computes the
 * code of a moment with an independent TOTP implementation (otpauth's URI parser and generator).
 */
import { URI, TOTP } from 'otpauth';

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
