/**
 * Auth policies as operators manage them (`/edge/management/v1/auth-policies`), and the one question
 * authentication asks of them: which policy governs this identity (reference facts §7).
 * The system `default` policy can be changed but not deleted; a policy identities use cannot be deleted.
 */
import { ApiError } from '../../errors/api-error.js';
import { NAMED_USERS, referencedEntityError } from '../referenced-entity.js';
import { DEFAULT_AUTH_POLICY_ID, type AuthPolicy, type AuthPolicyBody } from '../../domain/auth-policy.js';
import type { Identity } from '../../domain/identity.js';
import { AUTH_POLICY_TABLE, type AuthPolicyRepository } from '../../persistence/repositories/auth-policies.js';
import type { ExternalJwtSignerRepository } from '../../persistence/repositories/external-jwt-signers.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import type { Clock } from '../../shared/clock.js';
import type { AuditedChanges } from '../audit/audited-changes.js';
import { resourceService, type ResourceScope, type ResourceService } from '../resource-service.js';

type Tags = AuthPolicy['tags'];
type Primary = AuthPolicyBody['primary'];

/** A whole policy, as create and replace (PUT) take it; absent tags mean `{}`. */
export interface AuthPolicyInput extends AuthPolicyBody {
  name: string;
  tags?: Tags;
}

/** Any subset of a policy, at every level (PATCH). */
export interface AuthPolicyPatch {
  name?: string;
  primary?: { cert?: Partial<Primary['cert']>; updb?: Partial<Primary['updb']>; extJwt?: Partial<Primary['extJwt']> };
  secondary?: Partial<AuthPolicyBody['secondary']>;
  tags?: Tags;
}

/** What authentication needs: the policy that applies to an identity. */
export interface AuthPolicyResolver {
  /** The identity's policy, or `default` when it names none (or names one that no longer exists). */
  resolveForIdentity(identity: Pick<Identity, 'authPolicyId'>): Promise<AuthPolicy>;
}

/**
 * Policy management (the resource kit's operations). Beyond the kit's checks: 400 REFERENCED_ENTITY_NOT_FOUND when a
 * policy names an external JWT signer that does not exist; on delete, 400 ENTITY_CAN_NOT_BE_DELETED for the system
 * policy and 409 CAN_NOT_DELETE_REFERENCED_ENTITY while identities use it.
 */
export interface AuthPolicyService extends AuthPolicyResolver, ResourceService<AuthPolicy, AuthPolicyInput, AuthPolicyPatch> {}

/**
 * The resolver alone, for callers that only read policies (legacy and OIDC authentication).
 *
 * @example const policy = await createAuthPolicyResolver({ authPolicies }).resolveForIdentity(identity);
 */
export function createAuthPolicyResolver(deps: { authPolicies: AuthPolicyRepository }): AuthPolicyResolver {
  return {
    async resolveForIdentity(identity) {
      const named = identity.authPolicyId === null ? undefined : await deps.authPolicies.findById(identity.authPolicyId);
      const policy = named ?? (await deps.authPolicies.findById(DEFAULT_AUTH_POLICY_ID));
      if (!policy) throw new Error(`the system auth policy '${DEFAULT_AUTH_POLICY_ID}' is missing from the store`);
      return policy;
    },
  };
}

/** The policy after a PATCH: each level of `patch` overrides the same level of `current`. */
export function mergeAuthPolicy(current: AuthPolicy, patch: AuthPolicyPatch): AuthPolicyInput {
  return {
    name: patch.name ?? current.name,
    primary: {
      cert: { ...current.primary.cert, ...patch.primary?.cert },
      updb: { ...current.primary.updb, ...patch.primary?.updb },
      extJwt: { ...current.primary.extJwt, ...patch.primary?.extJwt },
    },
    secondary: { ...current.secondary, ...patch.secondary },
    tags: patch.tags ?? current.tags,
  };
}

/** What an administrator sets on a policy, as stored. */
type AuthPolicyFields = Pick<AuthPolicy, 'name' | 'primary' | 'secondary' | 'tags'>;

export function createAuthPolicyService(deps: {
  authPolicies: AuthPolicyRepository;
  identities: Pick<IdentityRepository, 'countUsingAuthPolicy' | 'namesUsingAuthPolicy'>;
  /** To refuse policies naming external JWT signers that do not exist. */
  signers: Pick<ExternalJwtSignerRepository, 'existingIds'>;
  /** A policy's change and its audit entry, in one transaction. */
  changes: AuditedChanges<Pick<AuthPolicyRepository, 'insert' | 'update' | 'delete'>>;
  clock: Clock;
}): AuthPolicyService {
  const { authPolicies, identities, signers } = deps;

  /**
   * 400 REFERENCED_ENTITY_NOT_FOUND naming the field when the policy names an external JWT signer that does not exist.
   * Signers `current` already names are not checked again, so a policy stored before this check stays editable.
   */
  async function requireKnownSigners(input: AuthPolicyBody, current?: AuthPolicyBody): Promise<void> {
    const { allowedSigners } = input.primary.extJwt;
    const required = input.secondary.requireExtJwt;
    const named = [...allowedSigners, ...(required === null ? [] : [required])];
    const before = new Set(current ? [...current.primary.extJwt.allowedSigners, current.secondary.requireExtJwt] : []);
    const known = await signers.existingIds(named.filter((id) => !before.has(id)));
    for (const id of before) if (id !== null) known.add(id);
    const unknown = (field: string, value: string) =>
      new ApiError('REFERENCED_ENTITY_NOT_FOUND', { message: `No external JWT signer has the id '${value}'`, cause: { field, reason: 'does not exist', value } });
    const missing = allowedSigners.find((id) => !known.has(id));
    if (missing !== undefined) throw unknown('primary.extJwt.allowedSigners', missing);
    if (required !== null && !known.has(required)) throw unknown('secondary.requireExtJwt', required);
  }

  const fields = (input: AuthPolicyInput): AuthPolicyFields => ({ name: input.name, ...body(input), tags: input.tags ?? {} });

  const policies = resourceService<AuthPolicy, AuthPolicyFields, AuthPolicyInput, AuthPolicyPatch, ResourceScope<AuthPolicy>>(
    { repository: authPolicies, fields: AUTH_POLICY_TABLE.fields, work: deps.changes, clock: deps.clock },
    {
      entityType: 'auth-policy',
      label: 'auth policy',
      fields,
      patched: (current, patch) => fields(mergeAuthPolicy(current, patch)),
      created: (policy, id, now) => ({ id, isSystem: false, ...policy, createdAt: now, updatedAt: now }),
      check: (policy, current) => requireKnownSigners(policy, current),
      async checkDelete(policy) {
        if (policy.isSystem) {
          throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { message: `The system auth policy '${policy.name}' cannot be deleted`, cause: { field: 'id', value: policy.id } });
        }
        const users = await identities.countUsingAuthPolicy(policy.id);
        if (users === 0) return;
        throw referencedEntityError({
          label: 'auth policy', name: policy.name, id: policy.id, singular: 'identity', plural: 'identities', referencedBy: 'identities',
          total: users, users: await identities.namesUsingAuthPolicy(policy.id, NAMED_USERS), advice: 'give those identities another auth policy first',
        });
      },
      // Only the settings, never secrets (policies hold none).
      auditDetails: (policy) => ({ name: policy.name, primary: policy.primary, secondary: policy.secondary }),
    },
  );

  return { ...createAuthPolicyResolver({ authPolicies }), ...policies };
}

/** The primary and secondary settings of an input, copied so the stored policy shares nothing with the request. */
function body(input: AuthPolicyBody): AuthPolicyBody {
  const { cert, updb, extJwt } = input.primary;
  return {
    primary: { cert: { allowed: cert.allowed, allowExpiredCerts: cert.allowExpiredCerts, allowedCas: [...(cert.allowedCas ?? [])] }, updb: { ...updb }, extJwt: { allowed: extJwt.allowed, allowedSigners: [...extJwt.allowedSigners] } },
    secondary: { requireTotp: input.secondary.requireTotp, requireExtJwt: input.secondary.requireExtJwt },
  };
}
