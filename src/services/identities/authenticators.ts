/**
 * Authenticators as administrators see them (`/edge/management/v1/authenticators` and
 * `/identities/{id}/authenticators`): list, read, delete. Views never carry a password hash (the domain value
 * has none). The default admin's password authenticator cannot be deleted: it is how the store stays reachable
 * (docs/decisions/0004-default-admin-protections.md). A delete commits with its audit entry (decision 0020).
 * A re-enroll (reference: `POST /authenticators/{id}/re-enroll`) turns an authenticator back into a pending
 * enrollment of the matching method in one unit of work: the delete, the enrollment and both audit entries commit
 * together, so a failure never leaves an identity with neither its credential nor a way to get a new one.
 */
import { ApiError } from '../../errors/api-error.js';
import type { Actor } from '../../domain/audit.js';
import type { Authenticator } from '../../domain/authenticator.js';
import { parseListParams, type RawListParams } from '../../persistence/query/list-query.js';
import { AUTHENTICATOR_FIELDS, type AuthenticatorRepository } from '../../persistence/repositories/authenticators.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import type { AuditedChanges, AuditedScope } from '../audit/audited-changes.js';
import type { UnitOfWork } from '../../persistence/unit-of-work.js';
import type { Enrollment, EnrollmentMethod } from '../../domain/enrollment.js';
import type { EnrollmentService } from '../enrollment/enrollment-service.js';
import type { ListPage } from '../list-page.js';

export interface AuthenticatorService {
  list(params: RawListParams): Promise<ListPage<Authenticator>>;
  /** The authenticators of one identity; 404 NOT_FOUND when the identity is unknown. */
  listForIdentity(identityId: string, params: RawListParams): Promise<ListPage<Authenticator>>;
  /** 404 NOT_FOUND when `id` is unknown. */
  get(id: string): Promise<Authenticator>;
  /** 400 ENTITY_CAN_NOT_BE_DELETED for the default admin's updb authenticator. */
  delete(actor: Actor, id: string): Promise<void>;
  /**
   * Deletes the authenticator and creates, for the same identity, a pending enrollment of the matching method
   * (updb with the same username, ott for a certificate) expiring at `expiresAt`; 404 for an unknown id, 400 naming
   * `expiresAt` when it is not in the future, and the delete's refusal for the default admin's password.
   */
  reEnroll(actor: Actor, id: string, expiresAt: Date): Promise<Enrollment>;
}

/** What a re-enroll writes on one transaction: the authenticator's delete, the new enrollment, their audit entries. */
export interface ReEnrollScope extends AuditedScope<Pick<AuthenticatorRepository, 'delete'>> {
  enrollments: Pick<EnrollmentService, 'create'>;
}

/** The enrollment method that gives back what an authenticator of `method` was (reference: cert becomes ott). */
const ENROLLMENT_FOR: Record<Authenticator['method'], EnrollmentMethod> = { updb: 'updb', cert: 'ott' };

export function createAuthenticatorService(deps: {
  authenticators: AuthenticatorRepository;
  identities: Pick<IdentityRepository, 'findById'>;
  /** A delete and its audit entry, in one transaction. */
  changes: AuditedChanges<Pick<AuthenticatorRepository, 'delete'>>;
  /** A re-enroll's delete, enrollment and audit entries, in one transaction. */
  reEnrollments: UnitOfWork<ReEnrollScope>;
}): AuthenticatorService {
  const { authenticators, identities } = deps;
  const filterableFields = Object.keys(AUTHENTICATOR_FIELDS);

  async function page(params: RawListParams, identityId?: string): Promise<ListPage<Authenticator>> {
    const query = parseListParams(params, AUTHENTICATOR_FIELDS);
    const { items, totalCount } = await authenticators.list(query, identityId);
    return { items, pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields };
  }

  async function found(id: string): Promise<Authenticator> {
    const authenticator = await authenticators.findById(id);
    if (!authenticator) throw new ApiError('NOT_FOUND', { message: `No authenticator has the id '${id}'`, cause: { field: 'id', value: id } });
    return authenticator;
  }

  /** The authenticator, unless it is the default admin's password (400 ENTITY_CAN_NOT_BE_DELETED). */
  async function deletable(id: string): Promise<Authenticator> {
    const authenticator = await found(id);
    const owner = await identities.findById(authenticator.identityId);
    if (owner?.isDefaultAdmin && authenticator.method === 'updb') {
      throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', {
        message: "The default admin's updb authenticator cannot be deleted: it is how the store stays reachable",
        cause: { field: 'id', value: id },
      });
    }
    return authenticator;
  }

  async function deleteWithEntry(scope: AuditedScope<Pick<AuthenticatorRepository, 'delete'>>, actor: Actor, authenticator: Authenticator, extra: Record<string, unknown> = {}) {
    await scope.records.delete(authenticator.id);
    await scope.audit.record(actor, 'delete', 'authenticator', authenticator.id, {
      identityId: authenticator.identityId,
      method: authenticator.method,
      ...(authenticator.username === null ? {} : { username: authenticator.username }),
      ...(authenticator.certFingerprint === null ? {} : { fingerprint: authenticator.certFingerprint }),
      ...extra,
    });
  }

  return {
    list: (params) => page(params),
    async listForIdentity(identityId, params) {
      if (!(await identities.findById(identityId))) {
        throw new ApiError('NOT_FOUND', { message: `No identity has the id '${identityId}'`, cause: { field: 'id', value: identityId } });
      }
      return page(params, identityId);
    },
    get: found,
    async delete(actor, id) {
      const authenticator = await deletable(id);
      await deps.changes((scope) => deleteWithEntry(scope, actor, authenticator));
    },
    async reEnroll(actor, id, expiresAt) {
      const authenticator = await deletable(id);
      return deps.reEnrollments(async (scope) => {
        await deleteWithEntry(scope, actor, authenticator, { reEnroll: true });
        return scope.enrollments.create(actor, {
          identityId: authenticator.identityId,
          method: ENROLLMENT_FOR[authenticator.method],
          expiresAt,
          ...(authenticator.username === null ? {} : { username: authenticator.username }),
        });
      });
    },
  };
}
