/**
 * The one interface every enrollment method implements (ott, updb, and those later issues add), and the shared
 * steps the enroll service lends them. A method decides what credential its token buys; finding the pending
 * enrollment and consuming it stay in ../enroll.ts, so every method gets the same token outcomes and the same
 * one-transaction consume whatever it creates.
 */
import type { CertificateAuthority } from '../../../domain/ca.js';
import type { Enrollment, EnrollmentMethod } from '../../../domain/enrollment.js';
import type { Identity } from '../../../domain/identity.js';
import type { ApiError } from '../../../errors/api-error.js';
import type { AuthPolicyRepository } from '../../../persistence/repositories/auth-policies.js';
import type { NewAuthenticator } from '../../../persistence/repositories/enrollments.js';
import type { LoadedCertificateAuthority } from '../../../pki/index.js';
import type { Clock } from '../../../shared/clock.js';
import type { CaCertAuthenticator } from '../../../persistence/repositories/cas.js';
import type { TrustedCa } from '../../cas/ca-trust.js';

/** Third-party CAs, for the methods that register a certificate one of them issued (ottca, ca). */
export interface EnrollCas {
  findById(id: string): Promise<CertificateAuthority | undefined>;
  /** Every verified CA. */
  verified(): Promise<TrustedCa[]>;
  /** Whether an authenticator already holds the certificate of this fingerprint. */
  certInUse(fingerprint: string): Promise<boolean>;
  /**
   * Creates `identity` with `authenticator` and records the enrollment, in one transaction. 409 CERT_IN_USE when the
   * certificate is taken meanwhile; `name-taken` when the identity's name is (the caller picks another).
   */
  enrollIdentity(identity: Identity, authenticator: CaCertAuthenticator, details: Record<string, unknown>): Promise<'enrolled' | 'name-taken'>;
}

/** A pending enrollment of a token, checked for method and expiry, with the identity it enrolls. */
export interface PendingEnrollment {
  enrollment: Enrollment;
  identity: Identity;
}

/** What the enroll service lends a method for one enrollment. */
export interface EnrollContext {
  clock: Clock;
  authPolicies: AuthPolicyRepository;
  /** Undefined when the controller has no `edge` section. */
  signingCa: LoadedCertificateAuthority | undefined;
  /** The pending enrollment of `token` for this method; the 400/404 token outcomes otherwise. */
  pending(token: string): Promise<PendingEnrollment>;
  /** Consumes the enrollment, creates `authenticator` and records who enrolled, in one transaction. */
  consume(pending: PendingEnrollment, authenticator: NewAuthenticator, details: Record<string, unknown>): Promise<void>;
  /** The answer when enrollment is not configured (no `edge` section). */
  unavailable(): ApiError;
  /** Third-party CAs; undefined where the controller was built without them. */
  cas: EnrollCas | undefined;
}

/**
 * An enrollment method: its name (`POST /enroll?method=`), the authenticator it leaves behind (for the
 * administration rules of enrollments.ts) and the exchange of a token and the method's input for a credential.
 */
export interface EnrollMethod<Input, Result extends { identityId: string }> {
  readonly name: EnrollmentMethod;
  /** The authenticator an enrollment creates: its method, and its kind in words ("a certificate authenticator"). */
  readonly authenticator: { readonly method: NewAuthenticator['method']; readonly kind: string };
  /** What clashes when another authenticator already holds the credential: the request field and its name in words. */
  readonly conflict: { readonly field: string; readonly what: string };
  /** Whether the administrator names a username when creating an enrollment of this method. */
  readonly takesUsername: boolean;
  /** Whether the administrator names a third-party CA (`caId`) when creating an enrollment of this method. */
  readonly takesCa?: boolean;
  /** False for methods an administrator cannot create enrollments of (`ca`: the certificate alone enrolls). */
  readonly administered?: boolean;
  enroll(context: EnrollContext, token: string, input: Input): Promise<Result>;
}
