/**
 * `GET /identities/{id}/policy-advice/{serviceId}` (reference getIdentityPolicyAdvice, administrators only): may the
 * identity dial or bind the service, and can a connection be made (edge routers both may use, online ones), with
 * the reasons in plain words.
 */
import type { PolicyAdvice } from '../../services/authorization/policy-advice.js';
import { ApiErrorBody, Envelope } from '../schemas/common.js';
import { PolicyAdviceParams, PolicyAdviceView } from '../schemas/policy.js';
import { envelope, selfLink } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';

const ref = (collection: string, entity: { id: string; name: string }) => ({ id: entity.id, name: entity.name, entity: collection, _links: selfLink(collection, entity.id) });

export function policyAdviceView(advice: PolicyAdvice) {
  return {
    identityId: advice.identity.id,
    identity: ref('identities', advice.identity),
    serviceId: advice.service.id,
    service: ref('services', advice.service),
    isDialAllowed: advice.dial.allowed,
    isBindAllowed: advice.bind.allowed,
    identityRouterCount: advice.identityRouterCount,
    serviceRouterCount: advice.serviceRouterCount,
    commonRouterCount: advice.commonRouterCount,
    commonRouters: advice.commonRouters.map(({ router, isOnline }) => ({ ...ref('edge-routers', router), isOnline })),
    reasons: advice.reasons,
  };
}

export const policyAdviceRoute = defineRoute({
  method: 'GET',
  url: '/identities/:id/policy-advice/:serviceId',
  operationId: 'getIdentityPolicyAdvice',
  summary: 'Says whether an identity may dial or bind a service and through which edge routers, and why not',
  tags: ['Identity'],
  access: 'admin',
  uses: ['authorization'],
  schema: { params: PolicyAdviceParams, response: { 200: Envelope(PolicyAdviceView), 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody } },
  handler: async ({ domains, params }) => envelope(policyAdviceView(await domains.authorization.policyAdvice.advise(params.id, params.serviceId))),
});
