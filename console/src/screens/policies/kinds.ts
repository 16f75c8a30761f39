/**
 * The three kinds of policy, as data: their collection, their names, and their role lists with the collection each
 * list selects from. The list, detail and form screens are written once and read this.
 */
import type { PreviewEntity } from '../../components/change-preview';
import { t } from '../../strings';

export interface RoleField {
  /** The body's field, e.g. `identityRoles`. */
  name: 'identityRoles' | 'serviceRoles' | 'edgeRouterRoles' | 'postureCheckRoles';
  label: string;
  collection: string;
  what: string;
}

export interface PolicyKind {
  entity: PreviewEntity & ('service-policies' | 'edge-router-policies' | 'service-edge-router-policies');
  title: string;
  singular: string;
  /** Service policies have a type (Dial or Bind). */
  typed: boolean;
  roles: RoleField[];
}

const IDENTITIES: RoleField = { name: 'identityRoles', label: t.policies.identityRoles, collection: '/identities', what: t.roles.identities };
const SERVICES: RoleField = { name: 'serviceRoles', label: t.policies.serviceRoles, collection: '/services', what: t.roles.services };
const ROUTERS: RoleField = { name: 'edgeRouterRoles', label: t.policies.edgeRouterRoles, collection: '/edge-routers', what: t.roles.edgeRouters };
const POSTURE: RoleField = { name: 'postureCheckRoles', label: t.policies.postureCheckRoles, collection: '/posture-checks', what: t.roles.postureChecks };

export const SERVICE_POLICIES: PolicyKind = {
  entity: 'service-policies',
  title: t.policies.servicePolicies,
  singular: t.policies.servicePolicy,
  typed: true,
  roles: [IDENTITIES, SERVICES, POSTURE],
};

export const EDGE_ROUTER_POLICIES: PolicyKind = {
  entity: 'edge-router-policies',
  title: t.policies.edgeRouterPolicies,
  singular: t.policies.edgeRouterPolicy,
  typed: false,
  roles: [IDENTITIES, ROUTERS],
};

export const SERVICE_EDGE_ROUTER_POLICIES: PolicyKind = {
  entity: 'service-edge-router-policies',
  title: t.policies.serviceEdgeRouterPolicies,
  singular: t.policies.serviceEdgeRouterPolicy,
  typed: false,
  roles: [SERVICES, ROUTERS],
};

export const POLICY_KINDS = [SERVICE_POLICIES, EDGE_ROUTER_POLICIES, SERVICE_EDGE_ROUTER_POLICIES];

/** A policy as the API answers it: common fields, and each role list beside its `…Display` names. */
export interface Policy {
  id: string;
  name: string;
  semantic: 'AllOf' | 'AnyOf';
  type?: 'Dial' | 'Bind';
  isSystem?: boolean;
  createdAt?: string;
  updatedAt?: string;
  [roles: string]: unknown;
}

export const rolesOf = (policy: Policy, field: string) => (policy[field] as string[] | undefined) ?? [];

/** `{ '@id': 'name' }` from every `…RolesDisplay` of a policy. */
export function namesOf(policy: Policy): Record<string, string> {
  const names: Record<string, string> = {};
  for (const [key, value] of Object.entries(policy)) {
    if (!key.endsWith('RolesDisplay') || !Array.isArray(value)) continue;
    for (const shown of value as { role: string; name: string }[]) if (shown.role.startsWith('@')) names[shown.role] = shown.name.replace(/^@/, '');
  }
  return names;
}

export const consolePath = (kind: PolicyKind, id?: string, suffix = '') => `/console/${kind.entity}${id ? `/${encodeURIComponent(id)}` : ''}${suffix}`;
