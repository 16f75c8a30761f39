/**
 * The edge routers an identity may use (client API `GET /current-identity/edge-routers`; issue 15, item 4): those
 * its edge router policies select, asked of the one policy engine (decision 0025) with the client's filter, sort and
 * paging, then read whole from the router store for what a client needs to connect (recorded addresses, cost,
 * traversal, disabled). Administrators get no shortcut: a router no policy gives them is one a session could not
 * use either (docs/decisions/0030-role-filters-and-client-routers.md).
 */
import type { EdgeRouter } from '../../domain/edge-router.js';
import type { EdgeRouterRepository } from '../../persistence/repositories/edge-routers.js';
import type { ListPage, RawListParams } from '../list-page.js';
import type { PolicyEngine } from './engine.js';
import { idIn } from './related-list.js';

export interface IdentityEdgeRouterService {
  /** One page of the routers identity `identityId` may use, in the engine's order; 404 when the identity is gone. */
  list(identityId: string, params: RawListParams): Promise<ListPage<EdgeRouter>>;
}

/**
 * @example const page = await identityEdgeRouters.list(auth.identity.id, { limit: '25' });
 */
export function createIdentityEdgeRouterService(deps: {
  engine: Pick<PolicyEngine, 'related'>;
  routers: Pick<EdgeRouterRepository, 'list'>;
}): IdentityEdgeRouterService {
  return {
    async list(identityId, params) {
      const page = await deps.engine.related('identity', identityId, 'edge-router', params);
      const ids = page.items.map((item) => item.id);
      if (ids.length === 0) return { ...page, items: [] };
      // One read by primary key for the page's routers; the engine's page decides membership and order.
      const { items } = await deps.routers.list({ where: idIn(ids), sort: [], limit: ids.length, offset: 0 });
      const byId = new Map(items.map((router) => [router.id, router]));
      // A router deleted between the two reads drops out of this page rather than showing half its fields.
      return { ...page, items: ids.flatMap((id) => byId.get(id) ?? []) };
    },
  };
}
