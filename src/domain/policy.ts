/**
 * The three kinds of policy (issue 14; reference facts A1–A3). Each pairs role lists (`#attribute`, `@id`, `#all`;
 * policy/roles.ts) under one semantic: a service policy lets identities dial or bind services (behind posture
 * checks), an edge router policy lets identities use edge routers, a service edge router policy lets services be
 * reached through edge routers. Roles are kept as written; the index (policy_roles) holds them parsed.
 */
import type { Semantic } from '../policy/roles.js';

export type { Semantic } from '../policy/roles.js';

export const SERVICE_POLICY_TYPES = ['Dial', 'Bind'] as const;
export type ServicePolicyType = (typeof SERVICE_POLICY_TYPES)[number];

export type Tags = Record<string, string | boolean | null>;

/** What every policy has. */
export interface PolicyCommon {
  id: string;
  name: string;
  semantic: Semantic;
  tags: Tags;
  createdAt: Date;
  updatedAt: Date;
}

export interface ServicePolicy extends PolicyCommon {
  type: ServicePolicyType;
  identityRoles: string[];
  serviceRoles: string[];
  postureCheckRoles: string[];
}

export interface EdgeRouterPolicy extends PolicyCommon {
  identityRoles: string[];
  edgeRouterRoles: string[];
  /** The policy a tunneler-enabled router has for its own identity: written by the router's lifecycle, never by hand. */
  isSystem: boolean;
}

export interface ServiceEdgeRouterPolicy extends PolicyCommon {
  serviceRoles: string[];
  edgeRouterRoles: string[];
}

/** The entity types roles name, as the index (entity_attributes, policy_roles) writes them. */
export type RoleTarget = 'identity' | 'service' | 'edge-router' | 'posture-check';

/** The kinds of policy and the sides (role lists) they have, as the role index (`policy_roles`) writes them. */
export type PolicyType = 'service-policy' | 'edge-router-policy' | 'service-edge-router-policy';
export type PolicySide = RoleTarget;

/** A role as a detail shows it: `@id` with the entity's name, `#attr` as itself (reference `namedRole`). */
export interface NamedRole {
  role: string;
  name: string;
}
