/**
 * Every check of a stored password goes through here (issue 12, points 2 and 3; decision 0015): a login by password,
 * legacy or OIDC, and the `currentPassword` of an authenticator change. Under a policy with `maxAttempts` > 0 each
 * attempt is counted before the password is looked at, atomically, so concurrent guesses share the budget; reaching
 * the limit locks out password checks of that authenticator for the policy's duration. A lockout is its own state:
 * it refuses password checks only, never disables the identity, never touches live sessions, tokens or other
 * methods, and ends by itself (`lockoutDurationMinutes: 0` means the longest lockout, `MAX_LOCKOUT_MS`) or when an
 * administrator enables the identity. The default admin's attempts are counted per client address, so guesses
 * from one address cannot lock the operator out from another.
 */
import { verifyPassword } from '../../crypto/passwords.js';
import type { AuthPolicy } from '../../domain/auth-policy.js';
import type { Identity } from '../../domain/identity.js';
import type { LockoutKey, PasswordLockoutRepository } from '../../persistence/repositories/password-lockouts.js';
import type { Clock } from '../../shared/clock.js';
import type { SecurityEvents } from '../audit/security-events.js';

/** A lockout never lasts longer than a day; a policy's `lockoutDurationMinutes: 0` asks for exactly this. */
export const MAX_LOCKOUT_MS = 24 * 60 * 60_000;

export interface PasswordCheck {
  identity: Pick<Identity, 'id' | 'name' | 'isDefaultAdmin'>;
  authenticatorId: string;
  passwordHash: string;
  /** The password presented. */
  secret: string;
  rules: Pick<AuthPolicy['primary']['updb'], 'maxAttempts' | 'lockoutDurationMinutes'>;
  /** The client's address (the default admin's lockout scope). */
  clientAddress: string | null;
}

export type PasswordVerdict = { ok: true } | { ok: false; lockedUntil: Date | null };

export interface PasswordGuard {
  /** Whether the password matches, counted against the policy's lockout; `lockedUntil` when a lockout refused it. */
  check(check: PasswordCheck): Promise<PasswordVerdict>;
  /** Forgets an identity's attempts and lockouts (an administrator's `enable`, a changed password); how many. */
  clear(identityId: string): Promise<number>;
}

export function createPasswordGuard(deps: { lockouts: PasswordLockoutRepository; events: SecurityEvents; clock: Clock }): PasswordGuard {
  const { lockouts, events, clock } = deps;

  async function lockOut(check: PasswordCheck, key: LockoutKey, attempts: number, now: Date): Promise<PasswordVerdict> {
    const minutes = check.rules.lockoutDurationMinutes;
    const until = new Date(now.getTime() + (minutes > 0 ? minutes * 60_000 : MAX_LOCKOUT_MS));
    // Only the request that starts the lockout reports it; concurrent ones over the limit find it in force.
    if (await lockouts.lock(key, until, now)) {
      await events.passwordLocked({ identity: check.identity, authenticatorId: check.authenticatorId, scope: key.scope, attempts, until });
    }
    return { ok: false, lockedUntil: until };
  }

  return {
    async check(check) {
      const { maxAttempts } = check.rules;
      // The hash is always verified, also when a lockout will refuse the attempt: a refusal then takes as long as
      // any other, so timing does not tell that an account exists and is locked.
      if (maxAttempts === 0) return (await verifyPassword(check.passwordHash, check.secret)) ? { ok: true } : { ok: false, lockedUntil: null };
      const key: LockoutKey = { authenticatorId: check.authenticatorId, scope: check.identity.isDefaultAdmin ? (check.clientAddress ?? '*') : '*' };
      const now = clock.now();
      const counted = await lockouts.countAttempt(key, check.identity.id, now);
      const matches = await verifyPassword(check.passwordHash, check.secret);
      if (counted.lockedUntil && counted.lockedUntil > now) return { ok: false, lockedUntil: counted.lockedUntil };
      // Past the budget (guesses sent together): refused unchecked, and the lockout starts if no one started it.
      if (counted.attempts > maxAttempts) return lockOut(check, key, counted.attempts, now);
      if (matches) {
        await lockouts.clear(key);
        return { ok: true };
      }
      return counted.attempts >= maxAttempts ? lockOut(check, key, counted.attempts, now) : { ok: false, lockedUntil: null };
    },
    clear: (identityId) => lockouts.clearIdentity(identityId),
  };
}
