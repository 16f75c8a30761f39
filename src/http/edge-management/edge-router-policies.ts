/**
 * Edge router policy management operations (`/edge-router-policies`, administrators only): list, create, read,
 * replace, patch, delete. Which identities may use which edge routers; a system policy cannot be changed or deleted.
 */
import { EdgeRouterPolicyBody, EdgeRouterPolicyDetail, EdgeRouterPolicyPatchBody } from '../schemas/policy.js';
import { resourceRoutes } from '../kit/resource-routes.js';
import { edgeRouterPolicyView } from './policy-views.js';

const policies = resourceRoutes({
  collection: 'edge-router-policies',
  tags: ['Edge Router Policy'],
  uses: 'authorization',
  service: (domains) => domains.authorization.edgeRouterPolicies,
  view: edgeRouterPolicyView,
  itemSchema: EdgeRouterPolicyDetail,
});

export const edgeRouterPolicyRoutes = [
  policies.list({ operationId: 'listEdgeRouterPolicies', summary: 'Lists edge router policies' }),
  policies.create({ operationId: 'createEdgeRouterPolicy', summary: 'Creates an edge router policy', body: EdgeRouterPolicyBody }),
  policies.detail({ operationId: 'detailEdgeRouterPolicy', summary: 'Reads one edge router policy, its roles with the names they stand for' }),
  policies.replace({ operationId: 'updateEdgeRouterPolicy', summary: 'Replaces an edge router policy (not a system one)', body: EdgeRouterPolicyBody }),
  policies.patch({ operationId: 'patchEdgeRouterPolicy', summary: 'Changes the given fields of an edge router policy (not a system one)', body: EdgeRouterPolicyPatchBody }),
  policies.delete({ operationId: 'deleteEdgeRouterPolicy', summary: 'Deletes an edge router policy (not a system one)' }),
];
