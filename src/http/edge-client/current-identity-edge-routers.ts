/**
 * `GET /current-identity/edge-routers` (client API; reference getCurrentIdentityEdgeRouters; issue 15, item 4): the
 * edge routers the session's identity may use through edge router policies, one page under the list parameters,
 * for either credential (legacy `svc-session` or OIDC bearer), each with its online status and the addresses it
 * advertised when it last connected (docs/decisions/0030-role-filters-and-client-routers.md, 0064-router-presence.md).
 */
import type { EdgeRouter } from '../../domain/edge-router.js';
import { ApiErrorBody, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { CurrentIdentityEdgeRouterView } from '../schemas/edge-router.js';
import { listEnvelope } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';

/** A router as a client sees it: where to connect and how to weigh it (not its appData or enrollment). */
export function currentIdentityEdgeRouterView(router: EdgeRouter) {
  return {
    id: router.id,
    name: router.name,
    hostname: router.connection.hostname ?? '',
    isOnline: router.connection.isOnline ?? false,
    supportedProtocols: router.connection.supportedProtocols ?? {},
    syncStatus: router.connection.syncStatus ?? 'SYNC_NEW',
    cost: router.cost,
    noTraversal: router.noTraversal,
    disabled: router.disabled,
    tags: router.tags,
    createdAt: router.createdAt.toISOString(),
    updatedAt: router.updatedAt.toISOString(),
    // The client API has no router resource to link to.
    _links: {},
  };
}

export const currentIdentityEdgeRoutersRoute = defineRoute({
  method: 'GET',
  url: '/current-identity/edge-routers',
  operationId: 'getCurrentIdentityEdgeRouters',
  summary: 'Lists the edge routers the identity of the session may use, with their addresses and online status',
  tags: ['Current Identity', 'Edge Router'],
  access: 'session',
  uses: ['authorization'],
  schema: { querystring: ListQueryParams, response: { 200: ListEnvelope(CurrentIdentityEdgeRouterView), 400: ApiErrorBody, 401: ApiErrorBody } },
  handler: async ({ domains, auth, query }) => {
    const page = await domains.authorization.identityEdgeRouters.list(auth!.identity.id, query);
    return listEnvelope(page.items.map(currentIdentityEdgeRouterView), page.pagination, page.filterableFields);
  },
});
