/**
 * Third-party certificate authorities (issue 16): an organisation's own PKI, registered by an administrator. Once its
 * key is proven held (verification), its certificates may log in (`isAuthEnabled`) and enroll identities: with an
 * administrator's one-time token (`ottca`) or by presenting a certificate alone (`ca`, auto-enrollment).
 */

/** Where in a presented certificate the identity's `externalId` is read (reference `externalIdClaim`). */
export const EXTERNAL_ID_LOCATIONS = ['COMMON_NAME', 'SAN_URI', 'SAN_EMAIL'] as const;
/** Which candidate values of the location are kept: all, or those with the criteria as prefix, suffix or URI scheme. */
export const EXTERNAL_ID_MATCHERS = ['ALL', 'PREFIX', 'SUFFIX', 'SCHEME'] as const;
/** How a kept value becomes the id: as is, or split on the criteria and the `index`th part taken. */
export const EXTERNAL_ID_PARSERS = ['NONE', 'SPLIT'] as const;

export interface ExternalIdClaim {
  location: (typeof EXTERNAL_ID_LOCATIONS)[number];
  matcher: (typeof EXTERNAL_ID_MATCHERS)[number];
  matcherCriteria: string;
  parser: (typeof EXTERNAL_ID_PARSERS)[number];
  parserCriteria: string;
  /** Which of the kept (and split) values is the id, from 0. */
  index: number;
}

/** The placeholders of `identityNameFormat` (reference symbols). */
export const IDENTITY_NAME_PLACEHOLDERS = ['[caName]', '[caId]', '[commonName]', '[requestedName]', '[identityId]'] as const;
/** The format used when a CA names none. */
export const DEFAULT_IDENTITY_NAME_FORMAT = '[caName]-[commonName]';

export interface CertificateAuthority {
  id: string;
  name: string;
  /** The CA certificate (one PEM block). */
  certPem: string;
  /** SHA-1 hex of the certificate's DER: unique among registered CAs. */
  fingerprint: string;
  /** True once a certificate signed by this CA with `verificationToken` as its common name was presented. */
  isVerified: boolean;
  /** The common name the verification certificate must carry; a random UUID chosen at creation. */
  verificationToken: string;
  isAuthEnabled: boolean;
  isAutoCaEnrollmentEnabled: boolean;
  isOttCaEnrollmentEnabled: boolean;
  /** Role attributes given to identities this CA auto-enrolls. */
  identityRoles: string[];
  identityNameFormat: string;
  externalIdClaim: ExternalIdClaim | null;
  tags: Record<string, string | boolean | null>;
  createdAt: Date;
  updatedAt: Date;
}
