/**
 * Edge router policies as operators manage them (`/edge/management/v1/edge-router-policies`; reference facts A1):
 * which identities may connect through which edge routers. Beyond the resource kit's rules: role lists well formed,
 * `@id`s existing, `AllOf` unless given. A system policy (the one a tunneler-enabled router has for its own identity)
 * belongs to that router's lifecycle: an administrator can neither change nor delete it (400).
 */
import type { EdgeRouterPolicy, Semantic, Tags } from '../../domain/policy.js';
import { ApiError } from '../../errors/api-error.js';
import { EDGE_ROUTER_POLICY_TABLE, type EdgeRouterPolicyRepository } from '../../persistence/repositories/edge-router-policies.js';
import type { PolicyEngineStore } from '../../persistence/repositories/policy-engine.js';
import type { Clock } from '../../shared/clock.js';
import type { PolicyEngine } from './engine.js';
import type { AuditedChanges } from '../audit/audited-changes.js';
import { resourceService, type ResourceScope } from '../resource-service.js';
import { checkRoleLists, definedOf, displayed, requireKnownIds, semanticOf, type PolicyService, type RoleField } from './policy-input.js';

/** A whole edge router policy (create, PUT). */
export interface EdgeRouterPolicyInput {
  name: string;
  semantic?: Semantic;
  identityRoles?: string[];
  edgeRouterRoles?: string[];
  tags?: Tags;
}

export type EdgeRouterPolicyPatch = Partial<EdgeRouterPolicyInput>;

type Fields = Omit<EdgeRouterPolicy, 'id' | 'isSystem' | 'createdAt' | 'updatedAt'>;

export const EDGE_ROUTER_POLICY_ROLES: readonly RoleField[] = [
  { key: 'identityRoles', side: 'identity' },
  { key: 'edgeRouterRoles', side: 'edge-router' },
];

export type EdgeRouterPolicyService = PolicyService<EdgeRouterPolicy, EdgeRouterPolicyInput, EdgeRouterPolicyPatch>;

const fields = (input: EdgeRouterPolicyInput): Fields => ({
  name: input.name,
  semantic: semanticOf(input.semantic),
  identityRoles: [...(input.identityRoles ?? [])],
  edgeRouterRoles: [...(input.edgeRouterRoles ?? [])],
  tags: input.tags ?? {},
});

export function createEdgeRouterPolicyService(deps: {
  policies: EdgeRouterPolicyRepository;
  store: Pick<PolicyEngineStore, 'existingIds' | 'namesByIds'>;
  changes: AuditedChanges<Pick<EdgeRouterPolicyRepository, 'insert' | 'update' | 'delete'>>;
  /** Which policies apply to an entity. */
  engine: Pick<PolicyEngine, 'policiesOf'>;
  clock: Clock;
}): EdgeRouterPolicyService {
  const { store } = deps;
  const policies = resourceService<EdgeRouterPolicy, Fields, EdgeRouterPolicyInput, EdgeRouterPolicyPatch, ResourceScope<EdgeRouterPolicy>>(
    { repository: deps.policies, fields: EDGE_ROUTER_POLICY_TABLE.fields, work: deps.changes, clock: deps.clock },
    {
      entityType: 'edge-router-policy',
      label: 'edge router policy',
      fields,
      patched: (current, patch) => fields({ ...current, ...definedOf(patch) }),
      created: (policy, id, now) => ({ ...policy, id, isSystem: false, createdAt: now, updatedAt: now }),
      async check(policy, current) {
        if (current?.isSystem) {
          throw new ApiError('ENTITY_CAN_NOT_BE_UPDATED', {
            message: `The system edge router policy '${current.name}' belongs to its router and cannot be changed`,
            cause: { field: 'id', value: current.id },
          });
        }
        checkRoleLists(policy, EDGE_ROUTER_POLICY_ROLES, current);
        await requireKnownIds(store, policy, EDGE_ROUTER_POLICY_ROLES, current);
      },
      checkDelete(policy) {
        if (!policy.isSystem) return;
        throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', {
          message: `The system edge router policy '${policy.name}' belongs to its router and cannot be deleted`,
          cause: { field: 'id', value: policy.id },
        });
      },
      auditDetails: (policy) => ({ name: policy.name, semantic: policy.semantic, identityRoles: policy.identityRoles, edgeRouterRoles: policy.edgeRouterRoles }),
    },
  );
  return displayed(store, EDGE_ROUTER_POLICY_ROLES, policies, (target, id, params) => deps.engine.policiesOf(target, id, 'edge-router-policy', params));
}
