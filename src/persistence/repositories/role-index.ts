/**
 * The two index tables the policy engine reads (migration 0012): entities' role attributes (`entity_attributes`)
 * and policies' roles (`policy_roles`). Resources write their rows here in the same transaction as their own row
 * (the kit's `dependents`, resource-table.ts), so the index never disagrees with the entities it describes.
 */
import type { Kysely } from 'kysely';
import type { PolicySide, PolicyType } from '../../domain/policy.js';
import { parseRoles } from '../../policy/roles.js';
import type { EntityAttributesTable, PolicyRolesTable, Tables } from '../tables.js';

/** The entity types that hold role attributes. */
export type AttributeHolder = 'identity' | 'service' | 'edge-router' | 'posture-check';

/** The policy types and the sides (role lists) they have (domain/policy.ts). */
export type { PolicySide, PolicyType } from '../../domain/policy.js';

/** The index rows of one entity's attributes (one per distinct attribute); bulk loaders insert many at once. */
export function attributeRows(entityType: AttributeHolder, entityId: string, attributes: readonly string[]): EntityAttributesTable[] {
  return [...new Set(attributes)].map((attribute) => ({ entity_type: entityType, attribute, entity_id: entityId }));
}

/** Replaces the indexed attributes of one entity. */
export async function indexAttributes(db: Kysely<Tables>, entityType: AttributeHolder, entityId: string, attributes: readonly string[]): Promise<void> {
  await db.deleteFrom('entity_attributes').where('entity_type', '=', entityType).where('entity_id', '=', entityId).execute();
  const rows = attributeRows(entityType, entityId, attributes);
  if (rows.length > 0) await db.insertInto('entity_attributes').values(rows).execute();
}

/**
 * Drops an entity's indexed attributes. Policies naming it by `@id` keep the role: their results join on the entity
 * tables, so a deleted entity drops out of every answer at once.
 */
export async function unindexEntity(db: Kysely<Tables>, entityType: AttributeHolder, entityId: string): Promise<void> {
  await db.deleteFrom('entity_attributes').where('entity_type', '=', entityType).where('entity_id', '=', entityId).execute();
}

/** The index rows of one policy's roles, side by side (`#all` has the value ''); bulk loaders insert many at once. */
export function policyRoleRows(policyType: PolicyType, policyId: string, sides: Partial<Record<PolicySide, readonly string[]>>): PolicyRolesTable[] {
  return Object.entries(sides).flatMap(([side, roles]) => {
    const parsed = parseRoles(roles ?? []);
    return [
      ...(parsed.all ? [{ kind: 'all', value: '' }] : []),
      // A valid list never repeats a role; a Set keeps the primary key safe for rows built from anything else.
      ...[...new Set(parsed.attributes)].map((value) => ({ kind: 'attribute', value })),
      ...[...new Set(parsed.ids)].map((value) => ({ kind: 'id', value })),
    ].map((role) => ({ policy_type: policyType, side, policy_id: policyId, ...role }));
  });
}

/** Replaces the indexed roles of one policy, side by side. */
export async function indexPolicyRoles(
  db: Kysely<Tables>,
  policyType: PolicyType,
  policyId: string,
  sides: Partial<Record<PolicySide, readonly string[]>>,
): Promise<void> {
  await db.deleteFrom('policy_roles').where('policy_id', '=', policyId).execute();
  const rows = policyRoleRows(policyType, policyId, sides);
  if (rows.length > 0) await db.insertInto('policy_roles').values(rows).execute();
}

/** Drops a policy's indexed roles. */
export async function unindexPolicy(db: Kysely<Tables>, policyId: string): Promise<void> {
  await db.deleteFrom('policy_roles').where('policy_id', '=', policyId).execute();
}
