/**
 * Service edge router policy management operations (`/service-edge-router-policies`, administrators only): list,
 * create, read, replace, patch, delete. Which services may be reached through which edge routers.
 */
import { ServiceEdgeRouterPolicyBody, ServiceEdgeRouterPolicyDetail, ServiceEdgeRouterPolicyPatchBody } from '../schemas/policy.js';
import { resourceRoutes } from '../kit/resource-routes.js';
import { serviceEdgeRouterPolicyView } from './policy-views.js';

const policies = resourceRoutes({
  collection: 'service-edge-router-policies',
  tags: ['Service Edge Router Policy'],
  uses: 'authorization',
  service: (domains) => domains.authorization.serviceEdgeRouterPolicies,
  view: serviceEdgeRouterPolicyView,
  itemSchema: ServiceEdgeRouterPolicyDetail,
});

export const serviceEdgeRouterPolicyRoutes = [
  policies.list({ operationId: 'listServiceEdgeRouterPolicies', summary: 'Lists service edge router policies' }),
  policies.create({ operationId: 'createServiceEdgeRouterPolicy', summary: 'Creates a service edge router policy', body: ServiceEdgeRouterPolicyBody }),
  policies.detail({ operationId: 'detailServiceEdgeRouterPolicy', summary: 'Reads one service edge router policy, its roles with the names they stand for' }),
  policies.replace({ operationId: 'updateServiceEdgeRouterPolicy', summary: 'Replaces a service edge router policy (absent role lists become empty)', body: ServiceEdgeRouterPolicyBody }),
  policies.patch({ operationId: 'patchServiceEdgeRouterPolicy', summary: 'Changes the given fields of a service edge router policy', body: ServiceEdgeRouterPolicyPatchBody }),
  policies.delete({ operationId: 'deleteServiceEdgeRouterPolicy', summary: 'Deletes a service edge router policy' }),
];
