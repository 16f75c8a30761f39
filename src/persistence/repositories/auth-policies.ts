/**
 * Auth policies in the store. The policy body (primary and secondary settings) is kept as one JSON document:
 * it is always read and written whole, and only `name` and the timestamps are filtered on.
 */
import type { AuthPolicy, AuthPolicyBody } from '../../domain/auth-policy.js';
import type { Database } from '../database.js';
import { listRows, type FieldMap, type ListQuery } from '../query/list-query.js';
import type { AuthPoliciesTable } from '../tables.js';
import { parseJson, toBool, toDate, toIso } from './row-values.js';

/** Public field name -> column, for `filter` and `sort` on the auth policies list. */
export const AUTH_POLICY_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  name: { column: 'name', type: 'string' },
  isSystem: { column: 'is_system', type: 'boolean' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
};

export interface AuthPolicyRepository {
  findById(id: string): Promise<AuthPolicy | undefined>;
  findByName(name: string): Promise<AuthPolicy | undefined>;
  /** `{id, name}` of each policy in `ids` that exists. */
  namesByIds(ids: readonly string[]): Promise<Map<string, string>>;
  list(query: ListQuery): Promise<{ items: AuthPolicy[]; totalCount: number }>;
  /** The policies that name external JWT signer `signerId` (primary.extJwt.allowedSigners or secondary.requireExtJwt). */
  findReferencingSigner(signerId: string): Promise<AuthPolicy[]>;
  insert(policy: AuthPolicy): Promise<void>;
  /** Writes name, body, tags and updatedAt. */
  update(policy: AuthPolicy): Promise<void>;
  delete(id: string): Promise<boolean>;
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

function toRow(policy: AuthPolicy): AuthPoliciesTable {
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

export function createAuthPolicyRepository(database: Database): AuthPolicyRepository {
  const { db } = database;
  return {
    async findById(id) {
      const row = await db.selectFrom('auth_policies').selectAll().where('id', '=', id).executeTakeFirst();
      return row && authPolicyFromRow(row);
    },
    async findByName(name) {
      const row = await db.selectFrom('auth_policies').selectAll().where('name', '=', name).executeTakeFirst();
      return row && authPolicyFromRow(row);
    },
    async namesByIds(ids) {
      const unique = [...new Set(ids)];
      if (unique.length === 0) return new Map();
      const rows = await db.selectFrom('auth_policies').select(['id', 'name']).where('id', 'in', unique).execute();
      return new Map(rows.map((row) => [row.id, row.name]));
    },
    async list(query) {
      const { rows, totalCount } = await listRows(database, 'auth_policies', AUTH_POLICY_FIELDS, query);
      return { items: rows.map(authPolicyFromRow), totalCount };
    },
    async findReferencingSigner(signerId) {
      // The body is JSON text; policies are few, so they are read whole and matched here rather than inside the JSON.
      const rows = await db.selectFrom('auth_policies').selectAll().orderBy('name').execute();
      return rows
        .map(authPolicyFromRow)
        .filter((policy) => policy.secondary.requireExtJwt === signerId || policy.primary.extJwt.allowedSigners.includes(signerId));
    },
    async insert(policy) {
      await db.insertInto('auth_policies').values(toRow(policy)).execute();
    },
    async update(policy) {
      const { name, body, tags, updated_at } = toRow(policy);
      await db.updateTable('auth_policies').set({ name, body, tags, updated_at }).where('id', '=', policy.id).execute();
    },
    async delete(id) {
      const result = await db.deleteFrom('auth_policies').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
