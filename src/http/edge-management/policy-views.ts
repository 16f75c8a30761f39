/**
 * Domain -> wire mappers of the three kinds of policy: the reference's detail, each role list beside its
 * `…RolesDisplay` (names of the entities `@id`s name).
 */
import type { EdgeRouterPolicy, ServiceEdgeRouterPolicy, ServicePolicy } from '../../domain/policy.js';
import type { Displayed } from '../../services/authorization/policy-input.js';
import { selfLink } from '../kit/envelope.js';

type Common = Displayed<ServicePolicy | EdgeRouterPolicy | ServiceEdgeRouterPolicy>;

function commonView(collection: string, policy: Common) {
  return {
    id: policy.id,
    name: policy.name,
    semantic: policy.semantic,
    tags: policy.tags,
    createdAt: policy.createdAt.toISOString(),
    updatedAt: policy.updatedAt.toISOString(),
    _links: selfLink(collection, policy.id),
  };
}

const shown = (policy: Common, key: string) => policy.rolesDisplay[key] ?? [];

export function servicePolicyView(policy: Displayed<ServicePolicy>) {
  return {
    ...commonView('service-policies', policy),
    type: policy.type,
    identityRoles: policy.identityRoles,
    identityRolesDisplay: shown(policy, 'identityRoles'),
    serviceRoles: policy.serviceRoles,
    serviceRolesDisplay: shown(policy, 'serviceRoles'),
    postureCheckRoles: policy.postureCheckRoles,
    postureCheckRolesDisplay: shown(policy, 'postureCheckRoles'),
  };
}

export function edgeRouterPolicyView(policy: Displayed<EdgeRouterPolicy>) {
  return {
    ...commonView('edge-router-policies', policy),
    isSystem: policy.isSystem,
    identityRoles: policy.identityRoles,
    identityRolesDisplay: shown(policy, 'identityRoles'),
    edgeRouterRoles: policy.edgeRouterRoles,
    edgeRouterRolesDisplay: shown(policy, 'edgeRouterRoles'),
  };
}

export function serviceEdgeRouterPolicyView(policy: Displayed<ServiceEdgeRouterPolicy>) {
  return {
    ...commonView('service-edge-router-policies', policy),
    serviceRoles: policy.serviceRoles,
    serviceRolesDisplay: shown(policy, 'serviceRoles'),
    edgeRouterRoles: policy.edgeRouterRoles,
    edgeRouterRolesDisplay: shown(policy, 'edgeRouterRoles'),
  };
}
