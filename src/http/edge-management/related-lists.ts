/**
 * The related lists of the authorization model (issue 14; reference `listIdentityServices` and its siblings): what
 * an identity, service or edge router may reach, the policies that apply to it, and what a policy selects. Each
 * takes the list parameters (filter, sort, paging), answers 404 for an unknown parent, and asks the policy engine:
 * no route here decides membership.
 */
import type { PolicySide, PolicyType, RoleTarget, ServicePolicyType } from '../../domain/policy.js';
import type { RoleEntity } from '../../services/authorization/engine.js';
import type { ListPage, RawListParams } from '../../services/list-page.js';
import type { Services } from '../../services/services.js';
import { ApiErrorBody, IdParams, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { EdgeRouterPolicyDetail, PolicyTypeQuery, RelatedEntity, ServiceEdgeRouterPolicyDetail, ServicePolicyDetail } from '../schemas/policy.js';
import { listEnvelope, selfLink } from '../kit/envelope.js';
import { defineRoute, type RouteDef } from '../kit/route.js';
import { edgeRouterPolicyView, serviceEdgeRouterPolicyView, servicePolicyView } from './policy-views.js';

type Authorization = Services['authorization'];

const COLLECTIONS: Record<RoleTarget, string> = { identity: 'identities', service: 'services', 'edge-router': 'edge-routers', 'posture-check': 'posture-checks' };
const POLICY_COLLECTIONS: Record<PolicyType, string> = {
  'service-policy': 'service-policies',
  'edge-router-policy': 'edge-router-policies',
  'service-edge-router-policy': 'service-edge-router-policies',
};
const TAGS: Record<RoleTarget | PolicyType, string> = {
  identity: 'Identity',
  service: 'Service',
  'edge-router': 'Edge Router',
  'posture-check': 'Posture Checks',
  'service-policy': 'Service Policy',
  'edge-router-policy': 'Edge Router Policy',
  'service-edge-router-policy': 'Service Edge Router Policy',
};
const responses = (item: Parameters<typeof ListEnvelope>[0]) => ({ 200: ListEnvelope(item), 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody });

/**
 * A neutral view of an entity in a related list, built from the engine's rows. The services, edge routers and
 * posture checks resources have their own views; when they settle, the lead swaps them in here.
 *
 * Views of entities the engine hands out from memory (the same objects request after request, never changed) are
 * kept with them, so a page of a hundred services does not format two hundred timestamps on every request.
 */
function entityView(target: RoleTarget) {
  const kept = new WeakMap<RoleEntity, object>();
  return (entity: RoleEntity) => {
    let view = kept.get(entity);
    if (view === undefined) {
      view = {
        id: entity.id,
        name: entity.name,
        roleAttributes: entity.roleAttributes,
        tags: entity.tags,
        createdAt: entity.createdAt.toISOString(),
        updatedAt: entity.updatedAt.toISOString(),
        _links: selfLink(COLLECTIONS[target], entity.id),
      };
      kept.set(entity, view);
    }
    return view;
  };
}

const VIEWS: Record<RoleTarget, (entity: RoleEntity) => object> = {
  identity: entityView('identity'),
  service: entityView('service'),
  'edge-router': entityView('edge-router'),
  'posture-check': entityView('posture-check'),
};

const asList = <T>(page: ListPage<T>, view: (item: T) => unknown) => listEnvelope(page.items.map(view), page.pagination, page.filterableFields);
const typeOf = (policyType: 'dial' | 'bind' | undefined): ServicePolicyType | undefined =>
  policyType === undefined ? undefined : policyType === 'dial' ? 'Dial' : 'Bind';

/** `/<from>/:id/<to>`: the `to` entities `from` reaches through its policies; identity↔service lists take `policyType`. */
function reachable(from: RoleTarget, to: RoleTarget, operationId: string, summary: string): RouteDef {
  const typed = (from === 'identity' && to === 'service') || (from === 'service' && to === 'identity');
  return defineRoute({
    method: 'GET',
    url: `/${COLLECTIONS[from]}/:id/${COLLECTIONS[to]}`,
    operationId,
    summary,
    tags: [TAGS[from]],
    access: 'admin',
    uses: ['authorization'],
    schema: { params: IdParams, querystring: typed ? PolicyTypeQuery : ListQueryParams, response: responses(RelatedEntity) },
    handler: async ({ domains, params, query }) => {
      const { policyType, ...list } = query as RawListParams & { policyType?: 'dial' | 'bind' };
      return asList(await domains.authorization.engine.related(from, params.id, to, list, typeOf(policyType)), VIEWS[to]);
    },
  });
}

/** How each policy kind's page is read and shown. */
const POLICY_KINDS = {
  'service-policy': { schema: ServicePolicyDetail, service: (a: Authorization) => a.servicePolicies, view: servicePolicyView },
  'edge-router-policy': { schema: EdgeRouterPolicyDetail, service: (a: Authorization) => a.edgeRouterPolicies, view: edgeRouterPolicyView },
  'service-edge-router-policy': { schema: ServiceEdgeRouterPolicyDetail, service: (a: Authorization) => a.serviceEdgeRouterPolicies, view: serviceEdgeRouterPolicyView },
} as const;

/** `/<target>/:id/<policies>`: the policies of a kind that apply to the entity. */
function applying(target: RoleTarget, policyType: PolicyType, operationId: string, summary: string): RouteDef {
  const kind = POLICY_KINDS[policyType];
  return defineRoute({
    method: 'GET',
    url: `/${COLLECTIONS[target]}/:id/${POLICY_COLLECTIONS[policyType]}`,
    operationId,
    summary,
    tags: [TAGS[target]],
    access: 'admin',
    uses: ['authorization'],
    schema: { params: IdParams, querystring: ListQueryParams, response: responses(kind.schema) },
    handler: async ({ domains, params, query }) => {
      const page = await kind.service(domains.authorization).appliesTo(target, params.id, query);
      return asList(page, kind.view as (item: unknown) => unknown);
    },
  });
}

/** `/<policies>/:id/<entities>`: what a policy selects on one side. */
function selected(policyType: PolicyType, side: PolicySide & RoleTarget, operationId: string, summary: string): RouteDef {
  return defineRoute({
    method: 'GET',
    url: `/${POLICY_COLLECTIONS[policyType]}/:id/${COLLECTIONS[side]}`,
    operationId,
    summary,
    tags: [TAGS[policyType]],
    access: 'admin',
    uses: ['authorization'],
    schema: { params: IdParams, querystring: ListQueryParams, response: responses(RelatedEntity) },
    handler: async ({ domains, params, query }) => asList(await domains.authorization.engine.members(policyType, params.id, side, query), VIEWS[side]),
  });
}

export const relatedListRoutes: RouteDef[] = [
  reachable('identity', 'service', 'listIdentityServices', 'Lists the services an identity may dial or bind (policyType narrows to one)'),
  reachable('identity', 'edge-router', 'listIdentityEdgeRouters', 'Lists the edge routers an identity may use'),
  applying('identity', 'service-policy', 'listIdentityServicePolicies', 'Lists the service policies that select an identity'),
  applying('identity', 'edge-router-policy', 'listIdentityEdgeRouterPolicies', 'Lists the edge router policies that select an identity'),
  reachable('service', 'identity', 'listServiceIdentities', 'Lists the identities that may dial or bind a service (policyType narrows to one)'),
  reachable('service', 'edge-router', 'listServiceEdgeRouters', 'Lists the edge routers a service may be reached through'),
  applying('service', 'service-policy', 'listServiceServicePolicies', 'Lists the service policies that select a service'),
  applying('service', 'service-edge-router-policy', 'listServiceServiceEdgeRouterPolicies', 'Lists the service edge router policies that select a service'),
  selected('service-policy', 'identity', 'listServicePolicyIdentities', 'Lists the identities a service policy selects'),
  selected('service-policy', 'service', 'listServicePolicyServices', 'Lists the services a service policy selects'),
  selected('service-policy', 'posture-check', 'listServicePolicyPostureChecks', 'Lists the posture checks a service policy requires'),
  selected('edge-router-policy', 'edge-router', 'listEdgeRouterPolicyEdgeRouters', 'Lists the edge routers an edge router policy selects'),
  selected('edge-router-policy', 'identity', 'listEdgeRouterPolicyIdentities', 'Lists the identities an edge router policy selects'),
  selected('service-edge-router-policy', 'edge-router', 'listServiceEdgeRouterPolicyEdgeRouters', 'Lists the edge routers a service edge router policy selects'),
  selected('service-edge-router-policy', 'service', 'listServiceEdgeRouterPolicyServices', 'Lists the services a service edge router policy selects'),
  applying('edge-router', 'edge-router-policy', 'listEdgeRouterEdgeRouterPolicies', 'Lists the edge router policies that select an edge router'),
  reachable('edge-router', 'identity', 'listEdgeRouterIdentities', 'Lists the identities that may use an edge router'),
  applying('edge-router', 'service-edge-router-policy', 'listEdgeRouterServiceEdgeRouterPolicies', 'Lists the service edge router policies that select an edge router'),
  reachable('edge-router', 'service', 'listEdgeRouterServices', 'Lists the services reachable through an edge router'),
];
