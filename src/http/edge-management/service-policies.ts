/**
 * Service policy management operations (`/service-policies`, administrators only): list, create, read, replace,
 * patch, delete. Which identities may dial or bind which services, behind which posture checks.
 */
import { ServicePolicyBody, ServicePolicyDetail, ServicePolicyPatchBody } from '../schemas/policy.js';
import { resourceRoutes } from '../kit/resource-routes.js';
import { servicePolicyView } from './policy-views.js';

const policies = resourceRoutes({
  collection: 'service-policies',
  tags: ['Service Policy'],
  uses: 'authorization',
  service: (domains) => domains.authorization.servicePolicies,
  view: servicePolicyView,
  itemSchema: ServicePolicyDetail,
});

export const servicePolicyRoutes = [
  policies.list({ operationId: 'listServicePolicies', summary: 'Lists service policies' }),
  policies.create({ operationId: 'createServicePolicy', summary: 'Creates a service policy', body: ServicePolicyBody }),
  policies.detail({ operationId: 'detailServicePolicy', summary: 'Reads one service policy, its roles with the names they stand for' }),
  policies.replace({ operationId: 'updateServicePolicy', summary: 'Replaces a service policy (absent role lists become empty)', body: ServicePolicyBody }),
  policies.patch({ operationId: 'patchServicePolicy', summary: 'Changes the given fields of a service policy', body: ServicePolicyPatchBody }),
  policies.delete({ operationId: 'deleteServicePolicy', summary: 'Deletes a service policy' }),
];
