/**
 * Auth policies in the store. The policy body (primary and secondary settings) is kept as one JSON document:
 * it is always read and written whole, and only `name` and the timestamps are filtered on. The common operations
 * come from the resource kit (resource-table.ts); the one query that is the policies' own is here.
 */
import type { AuthPolicy, AuthPolicyBody } from '../../domain/auth-policy.js';
import type { Database } from '../database.js';
import type { FieldMap } from '../query/list-query.js';
import { resourceRepository, type ResourceRepository, type ResourceTable } from '../resource-table.js';
import type { AuthPoliciesTable } from '../tables.js';
import { parseJson, toBool, toDate, toIso } from './row-values.js';

/** Public field name -> column, for `filter` and `sort` on the auth policies list. */
export const AUTH_POLICY_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  name: { column: 'name', type: 'string' },
  isSystem: { column: 'is_system', type: 'boolean' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
  tags: { column: 'tags', type: 'tags' },
};

export interface AuthPolicyRepository extends ResourceRepository<AuthPolicy> {
  /** The policies that name external JWT signer `signerId` (primary.extJwt.allowedSigners or secondary.requireExtJwt). */
  findReferencingSigner(signerId: string): Promise<AuthPolicy[]>;
}

export function authPolicyFromRow(row: AuthPoliciesTable): AuthPolicy {
  return {
    id: row.id,
    name: row.name,
    isSystem: toBool(row.is_system),
    ...parseJson<AuthPolicyBody>(row.body),
    tags: parseJson(row.tags),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

function authPolicyToRow(policy: AuthPolicy): AuthPoliciesTable {
  const body: AuthPolicyBody = { primary: policy.primary, secondary: policy.secondary };
  return {
    id: policy.id,
    name: policy.name,
    is_system: policy.isSystem,
    body: JSON.stringify(body),
    tags: JSON.stringify(policy.tags),
    created_at: toIso(policy.createdAt),
    updated_at: toIso(policy.updatedAt),
  };
}

/** How auth policies are stored. */
export const AUTH_POLICY_TABLE: ResourceTable<'auth_policies', AuthPolicy> = {
  table: 'auth_policies',
  fields: AUTH_POLICY_FIELDS,
  fromRow: authPolicyFromRow,
  toRow: authPolicyToRow,
  // Request authentication keeps policies in memory (the secondary JWT requirement): changes must reach it.
  changeLog: 'auth-policy',
};

export function createAuthPolicyRepository(database: Database): AuthPolicyRepository {
  return {
    ...resourceRepository(database, AUTH_POLICY_TABLE),
    async findReferencingSigner(signerId) {
      // The body is JSON text; policies are few, so they are read whole and matched here rather than inside the JSON.
      const rows = await database.db.selectFrom('auth_policies').selectAll().orderBy('name').execute();
      return rows
        .map(authPolicyFromRow)
        .filter((policy) => policy.secondary.requireExtJwt === signerId || policy.primary.extJwt.allowedSigners.includes(signerId));
    },
  };
}
