/**
 * Authenticators: the credentials an identity holds (a username/password or a client certificate), as
 * management sees them, and the certificate extension flags an API session shows of its login's authenticator. The
 * password hash is deliberately not part of this type: it never leaves the credential look-ups of authentication.
 */
export type AuthenticatorMethod = 'updb' | 'cert';

export interface Authenticator {
  id: string;
  identityId: string;
  /** Name of the owning identity, for the `identity` entity reference of the wire view. */
  identityName: string;
  method: AuthenticatorMethod;
  /** Set for `updb`. */
  username: string | null;
  /** Lower-case hex SHA-1 of the certificate's DER; set for `cert`. */
  certFingerprint: string | null;
  certPem: string | null;
  /** True for certificates this controller issued (enrollment). */
  isIssuedByNetwork: boolean;
  /** An administrator's `request-extend` (and whether it asked for a new key), until an extension verifies. */
  isExtendRequested: boolean;
  isKeyRollRequested: boolean;
  extendRequestedAt: Date | null;
  /** Whether the last verified extension changed the certificate's public key. */
  lastExtendRolledKeys: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** What an API session shows about its login certificate (reference apiSessionDetail; access token `z_ice` …). */
export interface CertExtensionFlags {
  isCertExtendable: boolean;
  isCertExtendRequested: boolean;
  isCertKeyRollRequested: boolean;
}

export const NO_EXTENSION: CertExtensionFlags = Object.freeze({ isCertExtendable: false, isCertExtendRequested: false, isCertKeyRollRequested: false });
