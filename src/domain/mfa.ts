/**
 * An identity's TOTP multi-factor enrollment (spec: MFA enrollment states). One per identity: pending until its
 * first code is verified, then enrolled. The secret and recovery codes are held here in the clear only in memory;
 * the store keeps them sealed (crypto/secret-box.ts).
 */
export interface MfaEnrollment {
  id: string;
  identityId: string;
  isVerified: boolean;
  /** Base32 TOTP secret. */
  secret: string;
  /** Unused recovery codes (each single-use). */
  recoveryCodes: string[];
  /** The last TOTP time step whose code was accepted; a code of that step or earlier is a replay. */
  lastUsedStep: number | null;
  /** Failed code attempts since the last success or lockout. */
  failedAttempts: number;
  /** While in the future, every code is refused. */
  lockedUntil: Date | null;
  /** Bumped by every change of the recovery codes, so two concurrent uses of one code cannot both succeed. */
  revision: number;
  createdAt: Date;
  updatedAt: Date;
}
