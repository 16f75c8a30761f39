/**
 * Edge router policies in the store: the resource kit's operations over `edge_router_policies` (migration 0012),
 * with the policy's roles kept in the role index (`policy_roles`) in the same transaction (decision 0025).
 */
import type { EdgeRouterPolicy } from '../../domain/policy.js';
import type { Semantic } from '../../policy/roles.js';
import type { Database } from '../database.js';
import type { FieldMap } from '../query/list-query.js';
import { resourceRepository, type ResourceRepository, type ResourceTable } from '../resource-table.js';
import type { EdgeRouterPoliciesTable } from '../tables.js';
import { indexPolicyRoles, unindexPolicy } from './role-index.js';
import { parseJson, toBool, toDate, toIso } from './row-values.js';

/** Public field name -> column, for `filter` and `sort` on the edge router policies list. */
export const EDGE_ROUTER_POLICY_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  name: { column: 'name', type: 'string' },
  semantic: { column: 'semantic', type: 'string' },
  isSystem: { column: 'is_system', type: 'boolean' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
  identityRoles: { column: 'identity_roles', type: 'stringSet' },
  edgeRouterRoles: { column: 'edge_router_roles', type: 'stringSet' },
  tags: { column: 'tags', type: 'tags' },
};

export function edgeRouterPolicyFromRow(row: EdgeRouterPoliciesTable): EdgeRouterPolicy {
  return {
    id: row.id,
    name: row.name,
    semantic: row.semantic as Semantic,
    identityRoles: parseJson(row.identity_roles),
    edgeRouterRoles: parseJson(row.edge_router_roles),
    isSystem: toBool(row.is_system),
    tags: parseJson(row.tags),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

/** How edge router policies are stored. */
export const EDGE_ROUTER_POLICY_TABLE: ResourceTable<'edge_router_policies', EdgeRouterPolicy> = {
  table: 'edge_router_policies',
  changeLog: 'edge-router-policy',
  fields: EDGE_ROUTER_POLICY_FIELDS,
  fromRow: edgeRouterPolicyFromRow,
  toRow: (policy) => ({
    id: policy.id,
    name: policy.name,
    semantic: policy.semantic,
    identity_roles: JSON.stringify(policy.identityRoles),
    edge_router_roles: JSON.stringify(policy.edgeRouterRoles),
    is_system: policy.isSystem,
    tags: JSON.stringify(policy.tags),
    created_at: toIso(policy.createdAt),
    updated_at: toIso(policy.updatedAt),
  }),
  // A system policy stays system: only the router's lifecycle writes that flag, at insert.
  keptOnUpdate: ['is_system'],
  dependents: {
    written: (db, policy) => indexPolicyRoles(db, 'edge-router-policy', policy.id, { identity: policy.identityRoles, 'edge-router': policy.edgeRouterRoles }),
    deleted: (db, id) => unindexPolicy(db, id),
  },
};

export type EdgeRouterPolicyRepository = ResourceRepository<EdgeRouterPolicy>;

export function createEdgeRouterPolicyRepository(database: Database): EdgeRouterPolicyRepository {
  return resourceRepository(database, EDGE_ROUTER_POLICY_TABLE);
}
