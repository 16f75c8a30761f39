/**
 * Service policies as operators manage them (`/edge/management/v1/service-policies`; reference facts A1–A3): which
 * identities may dial or bind which services, behind which posture checks. Beyond the resource kit's rules: every
 * role list well formed and every `@id` existing; absent lists are empty and the semantic is `AllOf` unless given.
 * Reads carry the roles' display names.
 */
import type { ServicePolicy, ServicePolicyType, Semantic, Tags } from '../../domain/policy.js';
import type { PolicyEngineStore } from '../../persistence/repositories/policy-engine.js';
import { SERVICE_POLICY_TABLE, type ServicePolicyRepository } from '../../persistence/repositories/service-policies.js';
import type { Clock } from '../../shared/clock.js';
import type { PolicyEngine } from './engine.js';
import type { AuditedChanges } from '../audit/audited-changes.js';
import { resourceService, type ResourceScope } from '../resource-service.js';
import { checkRoleLists, definedOf, displayed, requireKnownIds, semanticOf, type PolicyService, type RoleField } from './policy-input.js';

/** A whole service policy (create, PUT). */
export interface ServicePolicyInput {
  name: string;
  type: ServicePolicyType;
  semantic?: Semantic;
  identityRoles?: string[];
  serviceRoles?: string[];
  postureCheckRoles?: string[];
  tags?: Tags;
}

export type ServicePolicyPatch = Partial<ServicePolicyInput>;

type Fields = Omit<ServicePolicy, 'id' | 'createdAt' | 'updatedAt'>;

export const SERVICE_POLICY_ROLES: readonly RoleField[] = [
  { key: 'identityRoles', side: 'identity' },
  { key: 'serviceRoles', side: 'service' },
  { key: 'postureCheckRoles', side: 'posture-check' },
];

export type ServicePolicyService = PolicyService<ServicePolicy, ServicePolicyInput, ServicePolicyPatch>;

const fields = (input: ServicePolicyInput): Fields => ({
  name: input.name,
  type: input.type,
  semantic: semanticOf(input.semantic),
  identityRoles: [...(input.identityRoles ?? [])],
  serviceRoles: [...(input.serviceRoles ?? [])],
  postureCheckRoles: [...(input.postureCheckRoles ?? [])],
  tags: input.tags ?? {},
});

export function createServicePolicyService(deps: {
  policies: ServicePolicyRepository;
  /** To check `@id`s and show names. */
  store: Pick<PolicyEngineStore, 'existingIds' | 'namesByIds'>;
  changes: AuditedChanges<Pick<ServicePolicyRepository, 'insert' | 'update' | 'delete'>>;
  /** Which policies apply to an entity. */
  engine: Pick<PolicyEngine, 'policiesOf'>;
  clock: Clock;
}): ServicePolicyService {
  const { store } = deps;
  const policies = resourceService<ServicePolicy, Fields, ServicePolicyInput, ServicePolicyPatch, ResourceScope<ServicePolicy>>(
    { repository: deps.policies, fields: SERVICE_POLICY_TABLE.fields, work: deps.changes, clock: deps.clock },
    {
      entityType: 'service-policy',
      label: 'service policy',
      fields,
      patched: (current, patch) => fields({ ...current, ...definedOf(patch) }),
      async check(policy, current) {
        checkRoleLists(policy, SERVICE_POLICY_ROLES, current);
        await requireKnownIds(store, policy, SERVICE_POLICY_ROLES, current);
      },
      auditDetails: (policy) => ({
        name: policy.name,
        type: policy.type,
        semantic: policy.semantic,
        identityRoles: policy.identityRoles,
        serviceRoles: policy.serviceRoles,
        postureCheckRoles: policy.postureCheckRoles,
      }),
    },
  );
  return displayed(store, SERVICE_POLICY_ROLES, policies, (target, id, params) => deps.engine.policiesOf(target, id, 'service-policy', params));
}
