/**
 * Service edge router policies as operators manage them (`/edge/management/v1/service-edge-router-policies`;
 * reference facts A1): which services may be reached through which edge routers. Beyond the resource kit's rules:
 * role lists well formed, `@id`s existing, `AllOf` unless given.
 */
import type { Semantic, ServiceEdgeRouterPolicy, Tags } from '../../domain/policy.js';
import type { PolicyEngineStore } from '../../persistence/repositories/policy-engine.js';
import { SERVICE_EDGE_ROUTER_POLICY_TABLE, type ServiceEdgeRouterPolicyRepository } from '../../persistence/repositories/service-edge-router-policies.js';
import type { Clock } from '../../shared/clock.js';
import type { PolicyEngine } from './engine.js';
import type { AuditedChanges } from '../audit/audited-changes.js';
import { resourceService, type ResourceScope } from '../resource-service.js';
import { checkRoleLists, definedOf, displayed, requireKnownIds, semanticOf, type PolicyService, type RoleField } from './policy-input.js';

/** A whole service edge router policy (create, PUT). */
export interface ServiceEdgeRouterPolicyInput {
  name: string;
  semantic?: Semantic;
  serviceRoles?: string[];
  edgeRouterRoles?: string[];
  tags?: Tags;
}

export type ServiceEdgeRouterPolicyPatch = Partial<ServiceEdgeRouterPolicyInput>;

type Fields = Omit<ServiceEdgeRouterPolicy, 'id' | 'createdAt' | 'updatedAt'>;

export const SERVICE_EDGE_ROUTER_POLICY_ROLES: readonly RoleField[] = [
  { key: 'serviceRoles', side: 'service' },
  { key: 'edgeRouterRoles', side: 'edge-router' },
];

export type ServiceEdgeRouterPolicyService = PolicyService<ServiceEdgeRouterPolicy, ServiceEdgeRouterPolicyInput, ServiceEdgeRouterPolicyPatch>;

const fields = (input: ServiceEdgeRouterPolicyInput): Fields => ({
  name: input.name,
  semantic: semanticOf(input.semantic),
  serviceRoles: [...(input.serviceRoles ?? [])],
  edgeRouterRoles: [...(input.edgeRouterRoles ?? [])],
  tags: input.tags ?? {},
});

export function createServiceEdgeRouterPolicyService(deps: {
  policies: ServiceEdgeRouterPolicyRepository;
  store: Pick<PolicyEngineStore, 'existingIds' | 'namesByIds'>;
  changes: AuditedChanges<Pick<ServiceEdgeRouterPolicyRepository, 'insert' | 'update' | 'delete'>>;
  /** Which policies apply to an entity. */
  engine: Pick<PolicyEngine, 'policiesOf'>;
  clock: Clock;
}): ServiceEdgeRouterPolicyService {
  const { store } = deps;
  const policies = resourceService<ServiceEdgeRouterPolicy, Fields, ServiceEdgeRouterPolicyInput, ServiceEdgeRouterPolicyPatch, ResourceScope<ServiceEdgeRouterPolicy>>(
    { repository: deps.policies, fields: SERVICE_EDGE_ROUTER_POLICY_TABLE.fields, work: deps.changes, clock: deps.clock },
    {
      entityType: 'service-edge-router-policy',
      label: 'service edge router policy',
      fields,
      patched: (current, patch) => fields({ ...current, ...definedOf(patch) }),
      async check(policy, current) {
        checkRoleLists(policy, SERVICE_EDGE_ROUTER_POLICY_ROLES, current);
        await requireKnownIds(store, policy, SERVICE_EDGE_ROUTER_POLICY_ROLES, current);
      },
      auditDetails: (policy) => ({ name: policy.name, semantic: policy.semantic, serviceRoles: policy.serviceRoles, edgeRouterRoles: policy.edgeRouterRoles }),
    },
  );
  return displayed(store, SERVICE_EDGE_ROUTER_POLICY_ROLES, policies, (target, id, params) => deps.engine.policiesOf(target, id, 'service-edge-router-policy', params));
}
