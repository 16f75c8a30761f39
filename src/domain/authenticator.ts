/**
 * Authenticators: the credentials an identity holds (a username/password or a client certificate), as
 * management sees them. The password hash is deliberately not part of this type: it never leaves the
 * credential look-ups of authentication.
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
  createdAt: Date;
  updatedAt: Date;
}
