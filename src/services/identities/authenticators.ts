/**
 * Authenticators as administrators see them (`/edge/management/v1/authenticators` and
 * `/identities/{id}/authenticators`): list, read, delete. Views never carry a password hash (the domain value
 * has none). The default admin's password authenticator cannot be deleted: it is how the store stays reachable
 * (docs/decisions/0004-default-admin-protections.md). A delete commits with its audit entry (decision 0020).
 */
import { ApiError } from '../../errors/api-error.js';
import type { Actor } from '../../domain/audit.js';
import type { Authenticator } from '../../domain/authenticator.js';
import { parseListParams, type RawListParams } from '../../persistence/query/list-query.js';
import { AUTHENTICATOR_FIELDS, type AuthenticatorRepository } from '../../persistence/repositories/authenticators.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import type { AuditedChanges } from '../audit/audited-changes.js';
import type { ListPage } from '../list-page.js';

export interface AuthenticatorService {
  list(params: RawListParams): Promise<ListPage<Authenticator>>;
  /** The authenticators of one identity; 404 NOT_FOUND when the identity is unknown. */
  listForIdentity(identityId: string, params: RawListParams): Promise<ListPage<Authenticator>>;
  /** 404 NOT_FOUND when `id` is unknown. */
  get(id: string): Promise<Authenticator>;
  /** 400 ENTITY_CAN_NOT_BE_DELETED for the default admin's updb authenticator. */
  delete(actor: Actor, id: string): Promise<void>;
}

export function createAuthenticatorService(deps: {
  authenticators: AuthenticatorRepository;
  identities: Pick<IdentityRepository, 'findById'>;
  /** A delete and its audit entry, in one transaction. */
  changes: AuditedChanges<Pick<AuthenticatorRepository, 'delete'>>;
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
      const authenticator = await found(id);
      const owner = await identities.findById(authenticator.identityId);
      if (owner?.isDefaultAdmin && authenticator.method === 'updb') {
        throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', {
          message: "The default admin's updb authenticator cannot be deleted: it is how the store stays reachable",
          cause: { field: 'id', value: id },
        });
      }
      await deps.changes(async ({ records, audit }) => {
        await records.delete(id);
        await audit.record(actor, 'delete', 'authenticator', id, {
          identityId: authenticator.identityId,
          method: authenticator.method,
          ...(authenticator.username === null ? {} : { username: authenticator.username }),
          ...(authenticator.certFingerprint === null ? {} : { fingerprint: authenticator.certFingerprint }),
        });
      });
    },
  };
}
