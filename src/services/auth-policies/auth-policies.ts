/**
 * Auth policies as operators manage them (`/edge/management/v1/auth-policies`), and the one question
 * authentication asks of them: which policy governs this identity (reference facts §7).
 * The system `default` policy can be changed but not deleted; a policy identities use cannot be deleted.
 */
import { ApiError } from '../../errors/api-error.js';
import type { Actor } from '../../domain/audit.js';
import { DEFAULT_AUTH_POLICY_ID, type AuthPolicy, type AuthPolicyBody } from '../../domain/auth-policy.js';
import type { Identity } from '../../domain/identity.js';
import { parseListParams, type RawListParams } from '../../persistence/query/list-query.js';
import { AUTH_POLICY_FIELDS, type AuthPolicyRepository } from '../../persistence/repositories/auth-policies.js';
import type { ExternalJwtSignerRepository } from '../../persistence/repositories/external-jwt-signers.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import { nameProblem } from '../../policy/names.js';
import type { Clock } from '../../shared/clock.js';
import { newEntityId } from '../../shared/random.js';
import type { ListPage } from '../list-page.js';
import type { AuditedChanges } from '../audit/audited-changes.js';

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

export interface AuthPolicyService extends AuthPolicyResolver {
  list(params: RawListParams): Promise<ListPage<AuthPolicy>>;
  /** 404 NOT_FOUND when `id` is unknown. */
  get(id: string): Promise<AuthPolicy>;
  /**
   * 400 COULD_NOT_VALIDATE (field `name`) when the name is in use, 400 REFERENCED_ENTITY_NOT_FOUND when it names an
   * external JWT signer that does not exist (also on replace and patch).
   */
  create(actor: Actor, input: AuthPolicyInput): Promise<AuthPolicy>;
  replace(actor: Actor, id: string, input: AuthPolicyInput): Promise<AuthPolicy>;
  patch(actor: Actor, id: string, patch: AuthPolicyPatch): Promise<AuthPolicy>;
  /** 400 ENTITY_CAN_NOT_BE_DELETED for the system policy, 409 CAN_NOT_DELETE_REFERENCED_ENTITY while in use. */
  delete(actor: Actor, id: string): Promise<void>;
}

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

/** Only the settings, never secrets (policies hold none), for the audit trail. */
function auditDetails(policy: AuthPolicy): Record<string, unknown> {
  return { name: policy.name, primary: policy.primary, secondary: policy.secondary };
}

export function createAuthPolicyService(deps: {
  authPolicies: AuthPolicyRepository;
  identities: Pick<IdentityRepository, 'countUsingAuthPolicy'>;
  /** To refuse policies naming external JWT signers that do not exist. */
  signers: Pick<ExternalJwtSignerRepository, 'existingIds'>;
  /** A policy's change and its audit entry, in one transaction. */
  changes: AuditedChanges<Pick<AuthPolicyRepository, 'insert' | 'update' | 'delete'>>;
  clock: Clock;
}): AuthPolicyService {
  const { authPolicies, identities, signers, clock } = deps;
  const filterableFields = Object.keys(AUTH_POLICY_FIELDS);

  async function found(id: string): Promise<AuthPolicy> {
    const policy = await authPolicies.findById(id);
    if (!policy) throw new ApiError('NOT_FOUND', { message: `No auth policy has the id '${id}'`, cause: { field: 'id', value: id } });
    return policy;
  }

  /** The name rules (policy/names.ts), then uniqueness; a stored name that does not change is not judged again. */
  async function checkName(name: string, current?: AuthPolicy): Promise<void> {
    const problem = name === current?.name ? undefined : nameProblem(name);
    if (problem) throw new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: name ${problem}`, cause: { field: 'name', reason: problem, value: name } });
    const selfId = current?.id;
    const other = await authPolicies.findByName(name);
    if (other && other.id !== selfId) {
      throw new ApiError('COULD_NOT_VALIDATE', { message: `The name '${name}' is already in use`, cause: { field: 'name', reason: 'is already in use', value: name } });
    }
  }

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

  async function write(actor: Actor, current: AuthPolicy, input: AuthPolicyInput, action: 'update' | 'patch'): Promise<AuthPolicy> {
    await checkName(input.name, current);
    await requireKnownSigners(input, current);
    const next: AuthPolicy = { ...current, ...body(input), name: input.name, tags: input.tags ?? {}, updatedAt: clock.now() };
    await deps.changes(async ({ records, audit }) => {
      await records.update(next);
      await audit.record(actor, action, 'auth-policy', next.id, auditDetails(next));
    });
    return next;
  }

  return {
    ...createAuthPolicyResolver({ authPolicies }),
    async list(params) {
      const query = parseListParams(params, AUTH_POLICY_FIELDS);
      const { items, totalCount } = await authPolicies.list(query);
      return { items, pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields };
    },
    get: found,
    async create(actor, input) {
      await checkName(input.name);
      await requireKnownSigners(input);
      const now = clock.now();
      const policy: AuthPolicy = { id: newEntityId(), name: input.name, isSystem: false, ...body(input), tags: input.tags ?? {}, createdAt: now, updatedAt: now };
      await deps.changes(async ({ records, audit }) => {
        await records.insert(policy);
        await audit.record(actor, 'create', 'auth-policy', policy.id, auditDetails(policy));
      });
      return policy;
    },
    async replace(actor, id, input) {
      return write(actor, await found(id), input, 'update');
    },
    async patch(actor, id, patch) {
      const current = await found(id);
      return write(actor, current, mergeAuthPolicy(current, patch), 'patch');
    },
    async delete(actor, id) {
      const policy = await found(id);
      if (policy.isSystem) {
        throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { message: `The system auth policy '${policy.name}' cannot be deleted`, cause: { field: 'id', value: id } });
      }
      const users = await identities.countUsingAuthPolicy(id);
      if (users > 0) {
        throw new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY', {
          message: `The auth policy '${policy.name}' is used by ${users} ${users === 1 ? 'identity' : 'identities'}`,
          cause: { field: 'id', value: id, referencedBy: 'identities', count: users },
        });
      }
      await deps.changes(async ({ records, audit }) => {
        await records.delete(id);
        await audit.record(actor, 'delete', 'auth-policy', id, { name: policy.name });
      });
    },
  };
}

/** The primary and secondary settings of an input, copied so the stored policy shares nothing with the request. */
function body(input: AuthPolicyBody): AuthPolicyBody {
  const { cert, updb, extJwt } = input.primary;
  return {
    primary: { cert: { ...cert }, updb: { ...updb }, extJwt: { allowed: extJwt.allowed, allowedSigners: [...extJwt.allowedSigners] } },
    secondary: { requireTotp: input.secondary.requireTotp, requireExtJwt: input.secondary.requireExtJwt },
  };
}
