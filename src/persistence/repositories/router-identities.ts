/**
 * Which identity is a tunneler-enabled router's own (issue 43; decision 0070): its id is the router's. Read by the
 * identity and enrollment services to refuse what only the router's lifecycle may do to it.
 */
import type { Database } from '../database.js';

export interface RouterIdentityRepository {
  /** The tunneler-enabled router whose identity `identityId` is, or undefined. */
  routerOwning(identityId: string): Promise<{ id: string; name: string } | undefined>;
}

export function createRouterIdentityRepository(database: Database): RouterIdentityRepository {
  return {
    async routerOwning(identityId) {
      return database.db.selectFrom('edge_routers').select(['id', 'name']).where('id', '=', identityId).where('is_tunneler_enabled', '=', true).executeTakeFirst();
    },
  };
}

/** The system edge router policy of router `routerId`'s identity: `@identity -> @router`, by this name. */
export const routerSystemPolicyName = (routerId: string) => `edge-router-${routerId}-system`;
