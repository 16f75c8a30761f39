import type { OutstandingFactor } from './auth-policy.js';

/**
 * Identities: who authenticates to the controller (people, apps, routers), and their API sessions.
 */

/**
 * What a client says about itself at login (`sdkInfo`: the SDK and app; `envInfo`: the machine), flat: string,
 * number or boolean values only. Checked at the HTTP edge (http/schemas/client-info.ts); stored as given.
 */
export type ClientInfo = Record<string, string | number | boolean>;

/** How a hosting identity's terminators rank (reference terminator precedence). */
export const HOSTING_PRECEDENCES = ['default', 'required', 'failed'] as const;
export type HostingPrecedence = (typeof HOSTING_PRECEDENCES)[number];

/** The hosting settings of an identity: defaults, and per service id the precedence and cost that override them. */
export interface HostingSettings {
  defaultHostingPrecedence: HostingPrecedence;
  /** 0..65535 */
  defaultHostingCost: number;
  serviceHostingPrecedences: Record<string, HostingPrecedence>;
  serviceHostingCosts: Record<string, number>;
}

/** What an identity hosts with when nothing is set. */
export const DEFAULT_HOSTING: HostingSettings = { defaultHostingPrecedence: 'default', defaultHostingCost: 0, serviceHostingPrecedences: {}, serviceHostingCosts: {} };

/**
 * The identity types of the Edge Management API (`/identity-types`): what an identity is, for people and tools; the
 * controller stores the type given and treats every type alike.
 */
export const IDENTITY_TYPES = ['User', 'Device', 'Service', 'Router', 'Default'] as const;
export type IdentityTypeId = (typeof IDENTITY_TYPES)[number];

/** Whether a stored or sent value is one of IDENTITY_TYPES. */
export function isIdentityType(value: string): value is IdentityTypeId {
  return (IDENTITY_TYPES as readonly string[]).includes(value);
}

export interface Identity extends HostingSettings {
  id: string;
  name: string;
  typeId: IdentityTypeId;
  isAdmin: boolean;
  isDefaultAdmin: boolean;
  authPolicyId: string | null;
  externalId: string | null;
  roleAttributes: string[];
  tags: Record<string, string | boolean | null>;
  disabled: boolean;
  disabledAt: Date | null;
  disabledUntil: Date | null;
  /** From the last primary login that carried it; `{}` until then. */
  sdkInfo: ClientInfo;
  envInfo: ClientInfo;
  createdAt: Date;
  updatedAt: Date;
}

/** The fields an administrator (or the bootstrap) sets; everything else starts the same for every new identity. */
export type NewIdentityFields = Pick<Identity, 'id' | 'name' | 'typeId' | 'isAdmin' | 'roleAttributes' | 'authPolicyId' | 'externalId' | 'tags'>;

/** A new identity: enabled, no client info yet, created and updated `now`. */
export function newIdentity(fields: NewIdentityFields & Partial<HostingSettings>, now: Date, options: { isDefaultAdmin?: boolean } = {}): Identity {
  return {
    ...fields,
    defaultHostingPrecedence: fields.defaultHostingPrecedence ?? DEFAULT_HOSTING.defaultHostingPrecedence,
    defaultHostingCost: fields.defaultHostingCost ?? DEFAULT_HOSTING.defaultHostingCost,
    serviceHostingPrecedences: fields.serviceHostingPrecedences ?? {},
    serviceHostingCosts: fields.serviceHostingCosts ?? {},
    isDefaultAdmin: options.isDefaultAdmin ?? false,
    disabled: false,
    disabledAt: null,
    disabledUntil: null,
    sdkInfo: {},
    envInfo: {},
    createdAt: now,
    updatedAt: now,
  };
}

/** A legacy API session: what the `svc-session` token stands for. */
export interface ApiSession {
  id: string;
  identityId: string;
  authMethod: string;
  /** The authenticator that proved the primary credential (`extJwtId:<signer id>` for an external JWT). */
  authenticatorId: string;
  /**
   * The third-party CA the login chain reached (decision 0057): withdrawing it ends the session. Written at login only;
   * absent on sessions read back.
   */
  caId?: string | null;
  ipAddress: string | null;
  /** Config types the login asked for, as ids (or `all`); names are resolved at login (services/sessions/config-types.ts). */
  configTypes: string[];
  createdAt: Date;
  lastActivityAt: Date;
  /** Secondary factors still to answer (legacy partial authentication); empty when fully authenticated. */
  outstanding: OutstandingFactor[];
  /** Whether TOTP was required when the session started (`isMfaRequired`). */
  mfaRequired: boolean;
}
