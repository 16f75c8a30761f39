import type { OutstandingFactor } from './auth-policy.js';

/**
 * Identities: who authenticates to the controller (people, apps, routers), and their API sessions.
 */
export interface Identity {
  id: string;
  name: string;
  typeId: 'Default' | 'Router';
  isAdmin: boolean;
  isDefaultAdmin: boolean;
  authPolicyId: string | null;
  externalId: string | null;
  roleAttributes: string[];
  tags: Record<string, string | boolean | null>;
  disabled: boolean;
  disabledAt: Date | null;
  disabledUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A legacy API session: what the `svc-session` token stands for. */
export interface ApiSession {
  id: string;
  identityId: string;
  authMethod: string;
  ipAddress: string | null;
  createdAt: Date;
  lastActivityAt: Date;
  /** Secondary factors still to answer (legacy partial authentication); empty when fully authenticated. */
  outstanding: OutstandingFactor[];
  /** Whether TOTP was required when the session started (`isMfaRequired`). */
  mfaRequired: boolean;
}
