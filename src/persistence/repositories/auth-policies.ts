/**
 * Auth policies in the store. The policy body (primary and secondary settings) is kept as one JSON document:
 * it is always read and written whole, and only `name` is filtered on.
 */
import type { AuthPolicy, AuthPolicyBody } from '../../domain/auth-policy.js';
import type { Database } from '../database.js';
import type { AuthPoliciesTable } from '../tables.js';
import { parseJson, toBool, toDate } from './row-values.js';

export interface AuthPolicyRepository {
  findById(id: string): Promise<AuthPolicy | undefined>;
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

export function createAuthPolicyRepository({ db }: Database): AuthPolicyRepository {
  return {
    async findById(id) {
      const row = await db.selectFrom('auth_policies').selectAll().where('id', '=', id).executeTakeFirst();
      return row && authPolicyFromRow(row);
    },
  };
}
