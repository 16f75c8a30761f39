/**
 * The contract of the enrollment service (implemented in enrollments.ts): what identity management and the
 * enrollment routes call.
 */
import type { Actor } from '../../domain/audit.js';
import type { Enrollment, EnrollmentMethod } from '../../domain/enrollment.js';
import type { RawListParams } from '../../persistence/query/list-query.js';
import type { ListPage } from '../list-page.js';

export interface CreateEnrollmentInput {
  identityId: string;
  method: EnrollmentMethod;
  /** Required for `updb`. */
  username?: string;
  /** Required for `ottca`: the third-party CA whose certificate the identity will present. */
  caId?: string;
  /** The request field that carried `username`, for errors (`enrollment.updb` on identity create); default `username`. */
  usernameField?: string;
  /** Defaults to now + edge.enrollment.edgeIdentity.duration. */
  expiresAt?: Date;
}

export interface EnrollmentService {
  /** Creates a pending enrollment with its signed JWT; 409 ENROLLMENT_EXISTS when one of that method is pending. */
  create(actor: Actor, input: CreateEnrollmentInput): Promise<Enrollment>;
  /** Pending enrollments of one identity. */
  pendingForIdentity(identityId: string): Promise<Enrollment[]>;
  /** Pending enrollments of each of `identityIds` (for the identity details' `enrollment` field, a page at a time). */
  pendingForIdentities(identityIds: readonly string[]): Promise<Enrollment[]>;
  list(params: RawListParams): Promise<ListPage<Enrollment>>;
  get(id: string): Promise<Enrollment>;
  delete(actor: Actor, id: string): Promise<void>;
  /** A new token, JWT and expiry for a pending enrollment. */
  refresh(actor: Actor, id: string, expiresAt?: Date): Promise<Enrollment>;
}
