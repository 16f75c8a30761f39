/**
 * Enrollments: a pending, one-time way for an identity to obtain a credential. `ott` exchanges a CSR for a
 * client certificate; `updb` sets a password for the username the administrator chose; `ottca` registers a client
 * certificate a third-party CA issued. `ca` (auto-enrollment by such a certificate alone) has no pending enrollment:
 * it is a method of `POST /enroll`, never stored.
 */
export type EnrollmentMethod = 'ott' | 'updb' | 'ottca' | 'ca';

export interface Enrollment {
  id: string;
  identityId: string;
  method: EnrollmentMethod;
  /** The one-time token (UUID v4); also the `jti` of the enrollment JWT. */
  token: string;
  /** For `updb`: the username the password will belong to. */
  username: string | null;
  /** For `ottca`: the third-party CA whose certificate the identity will present. */
  caId?: string | null;
  /** The signed enrollment JWT (claims em, iss, sub, jti, exp) handed to the enrolling client. */
  jwt: string;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
}
