/**
 * Authentication policies: which primary methods an identity may use, its password rules and lockout, and the
 * secondary factors it must present (spec: Authentication Policy settings; reference facts §7).
 */
export interface AuthPolicyBody {
  primary: {
    cert: {
      allowed: boolean;
      allowExpiredCerts: boolean;
      /**
       * Third-party CAs (ids) whose externalIdClaim may log in identities of this policy, beside those enrolled through
       * the CA; the only way a claim reaches an administrator (decision 0057). Absent in policies stored before it: none.
       */
      allowedCas?: string[];
    };
    updb: {
      allowed: boolean;
      minPasswordLength: number;
      requireSpecialChar: boolean;
      requireNumberChar: boolean;
      requireMixedCase: boolean;
      /** Failed attempts before lockout; 0 = unlimited. */
      maxAttempts: number;
      /** How long a password lockout lasts; 0 = the longest, 24 hours (decision 0015). */
      lockoutDurationMinutes: number;
    };
    extJwt: { allowed: boolean; allowedSigners: string[] };
  };
  secondary: { requireTotp: boolean; requireExtJwt: string | null };
}

/** A secondary factor still to be answered after the primary credential (TOTP, or a JWT of a named signer). */
export type OutstandingFactor = { readonly kind: 'totp' } | { readonly kind: 'ext-jwt'; readonly signerId: string };

export interface AuthPolicy extends AuthPolicyBody {
  id: string;
  name: string;
  isSystem: boolean;
  tags: Record<string, string | boolean | null>;
  createdAt: Date;
  updatedAt: Date;
}

/** The id of the system policy used by identities that name none. */
export const DEFAULT_AUTH_POLICY_ID = 'default';
