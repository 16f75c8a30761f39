/**
 * Enrollments: a pending, one-time way for an identity to obtain a credential. `ott` exchanges a CSR for a
 * client certificate; `updb` sets a password for the username the administrator chose.
 */
export type EnrollmentMethod = 'ott' | 'updb';

export interface Enrollment {
  id: string;
  identityId: string;
  method: EnrollmentMethod;
  /** The one-time token (UUID v4); also the `jti` of the enrollment JWT. */
  token: string;
  /** For `updb`: the username the password will belong to. */
  username: string | null;
  /** The signed enrollment JWT (claims em, iss, sub, jti, exp) handed to the enrolling client. */
  jwt: string;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
}
