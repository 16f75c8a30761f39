/**
 * Service policies in the store: the resource kit's operations over `service_policies` (migration 0012). Each write
 * replaces the policy's rows in the role index (`policy_roles`) in the same transaction, and a delete drops them, so
 * the policy engine's candidate lookups never disagree with the policies (decision 0025).
 */
import type { ServicePolicy, ServicePolicyType } from '../../domain/policy.js';
import type { Semantic } from '../../policy/roles.js';
import type { FieldMap } from '../query/list-query.js';
import type { Database } from '../database.js';
import { resourceRepository, type ResourceRepository, type ResourceTable } from '../resource-table.js';
import type { ServicePoliciesTable } from '../tables.js';
import { indexPolicyRoles, unindexPolicy } from './role-index.js';
import { parseJson, toDate, toIso } from './row-values.js';

/** Public field name -> column, for `filter` and `sort` on the service policies list. */
export const SERVICE_POLICY_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  name: { column: 'name', type: 'string' },
  type: { column: 'type', type: 'string' },
  semantic: { column: 'semantic', type: 'string' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
  identityRoles: { column: 'identity_roles', type: 'stringSet' },
  serviceRoles: { column: 'service_roles', type: 'stringSet' },
  postureCheckRoles: { column: 'posture_check_roles', type: 'stringSet' },
  tags: { column: 'tags', type: 'tags' },
};

export function servicePolicyFromRow(row: ServicePoliciesTable): ServicePolicy {
  return {
    id: row.id,
    name: row.name,
    type: row.type as ServicePolicyType,
    semantic: row.semantic as Semantic,
    identityRoles: parseJson(row.identity_roles),
    serviceRoles: parseJson(row.service_roles),
    postureCheckRoles: parseJson(row.posture_check_roles),
    tags: parseJson(row.tags),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

/** How service policies are stored. */
export const SERVICE_POLICY_TABLE: ResourceTable<'service_policies', ServicePolicy> = {
  table: 'service_policies',
  changeLog: 'service-policy',
  fields: SERVICE_POLICY_FIELDS,
  fromRow: servicePolicyFromRow,
  toRow: (policy) => ({
    id: policy.id,
    name: policy.name,
    type: policy.type,
    semantic: policy.semantic,
    identity_roles: JSON.stringify(policy.identityRoles),
    service_roles: JSON.stringify(policy.serviceRoles),
    posture_check_roles: JSON.stringify(policy.postureCheckRoles),
    tags: JSON.stringify(policy.tags),
    created_at: toIso(policy.createdAt),
    updated_at: toIso(policy.updatedAt),
  }),
  dependents: {
    written: (db, policy) =>
      indexPolicyRoles(db, 'service-policy', policy.id, {
        identity: policy.identityRoles,
        service: policy.serviceRoles,
        'posture-check': policy.postureCheckRoles,
      }),
    deleted: (db, id) => unindexPolicy(db, id),
  },
};

export type ServicePolicyRepository = ResourceRepository<ServicePolicy>;

export function createServicePolicyRepository(database: Database): ServicePolicyRepository {
  return resourceRepository(database, SERVICE_POLICY_TABLE);
}
