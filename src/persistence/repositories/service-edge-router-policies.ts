/**
 * Service edge router policies in the store: the resource kit's operations over `service_edge_router_policies`
 * (migration 0012), with the policy's roles kept in the role index (`policy_roles`) in the same transaction
 * (decision 0025).
 */
import type { ServiceEdgeRouterPolicy } from '../../domain/policy.js';
import type { Semantic } from '../../policy/roles.js';
import type { Database } from '../database.js';
import type { FieldMap } from '../query/list-query.js';
import { resourceRepository, type ResourceRepository, type ResourceTable } from '../resource-table.js';
import type { ServiceEdgeRouterPoliciesTable } from '../tables.js';
import { indexPolicyRoles, unindexPolicy } from './role-index.js';
import { parseJson, toDate, toIso } from './row-values.js';

/** Public field name -> column, for `filter` and `sort` on the service edge router policies list. */
export const SERVICE_EDGE_ROUTER_POLICY_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  name: { column: 'name', type: 'string' },
  semantic: { column: 'semantic', type: 'string' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
  serviceRoles: { column: 'service_roles', type: 'stringSet' },
  edgeRouterRoles: { column: 'edge_router_roles', type: 'stringSet' },
  tags: { column: 'tags', type: 'tags' },
};

export function serviceEdgeRouterPolicyFromRow(row: ServiceEdgeRouterPoliciesTable): ServiceEdgeRouterPolicy {
  return {
    id: row.id,
    name: row.name,
    semantic: row.semantic as Semantic,
    serviceRoles: parseJson(row.service_roles),
    edgeRouterRoles: parseJson(row.edge_router_roles),
    tags: parseJson(row.tags),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

/** How service edge router policies are stored. */
export const SERVICE_EDGE_ROUTER_POLICY_TABLE: ResourceTable<'service_edge_router_policies', ServiceEdgeRouterPolicy> = {
  table: 'service_edge_router_policies',
  changeLog: 'service-edge-router-policy',
  fields: SERVICE_EDGE_ROUTER_POLICY_FIELDS,
  fromRow: serviceEdgeRouterPolicyFromRow,
  toRow: (policy) => ({
    id: policy.id,
    name: policy.name,
    semantic: policy.semantic,
    service_roles: JSON.stringify(policy.serviceRoles),
    edge_router_roles: JSON.stringify(policy.edgeRouterRoles),
    tags: JSON.stringify(policy.tags),
    created_at: toIso(policy.createdAt),
    updated_at: toIso(policy.updatedAt),
  }),
  dependents: {
    written: (db, policy) =>
      indexPolicyRoles(db, 'service-edge-router-policy', policy.id, { service: policy.serviceRoles, 'edge-router': policy.edgeRouterRoles }),
    deleted: (db, id) => unindexPolicy(db, id),
  },
};

export type ServiceEdgeRouterPolicyRepository = ResourceRepository<ServiceEdgeRouterPolicy>;

export function createServiceEdgeRouterPolicyRepository(database: Database): ServiceEdgeRouterPolicyRepository {
  return resourceRepository(database, SERVICE_EDGE_ROUTER_POLICY_TABLE);
}
