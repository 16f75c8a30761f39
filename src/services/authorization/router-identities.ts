/**
 * A tunneler-enabled router's own identity (issue 43; decision 0070; upstream does the same): id = the router's id,
 * name = the router's name, type `Router`, and a system edge router policy `@<identity> -> @<router>` so it may use
 * its own router. Both follow the router in the router's own unit of work: made when the router is created (or
 * updated) with `isTunnelerEnabled`, renamed with it, removed when the flag goes off or the router is deleted. The
 * identity authenticates with the router's certificate, never on its own, so it is not enrolled; policies name it
 * like any identity (`@<id>` or attributes), which is how a router is granted Bind for the services it hosts.
 */
import { newIdentity } from '../../domain/identity.js';
import type { EdgeRouter } from '../../domain/edge-router.js';
import { DEFAULT_AUTH_POLICY_ID } from '../../domain/auth-policy.js';
import { ApiError } from '../../errors/api-error.js';
import type { Database } from '../../persistence/database.js';
import { createEdgeRouterPolicyRepository } from '../../persistence/repositories/edge-router-policies.js';
import { createEdgeRouterRepository, type EdgeRouterRepository } from '../../persistence/repositories/edge-routers.js';
import { createIdentityRepository } from '../../persistence/repositories/identities.js';
import { routerSystemPolicyName } from '../../persistence/repositories/router-identities.js';
import type { Clock } from '../../shared/clock.js';

/**
 * The router records of a unit of work whose writes keep the router's identity and system policy in step (the
 * identity and policy repositories on the same transaction's store).
 */
export function routerRecordsWithIdentity(store: Database, clock: Clock): EdgeRouterRepository {
  const routers = createEdgeRouterRepository(store);
  const identities = createIdentityRepository(store);
  const policies = createEdgeRouterPolicyRepository(store);

  async function ensure(router: EdgeRouter): Promise<void> {
    const now = clock.now();
    const identity = await identities.findById(router.id);
    if (!identity) {
      await identities.insert(newIdentity({ id: router.id, name: router.name, typeId: 'Router', isAdmin: false, roleAttributes: [], authPolicyId: DEFAULT_AUTH_POLICY_ID, externalId: null, tags: {} }, now));
    } else if (identity.name !== router.name) {
      await identities.update({ ...identity, name: router.name, updatedAt: now });
    }
    const name = routerSystemPolicyName(router.id);
    if (!(await policies.findByName(name))) {
      await policies.insert({ id: router.id, name, semantic: 'AnyOf', identityRoles: [`@${router.id}`], edgeRouterRoles: [`@${router.id}`], isSystem: true, tags: {}, createdAt: now, updatedAt: now });
    }
  }

  async function remove(routerId: string): Promise<void> {
    const policy = await policies.findByName(routerSystemPolicyName(routerId));
    if (policy) await policies.delete(policy.id);
    if (await identities.findById(routerId)) await identities.delete(routerId);
  }

  return {
    ...routers,
    async insert(router) {
      await routers.insert(router);
      if (router.isTunnelerEnabled) await ensure(router);
    },
    async update(router) {
      await routers.update(router);
      if (router.isTunnelerEnabled) await ensure(router);
      else await remove(router.id);
    },
    async delete(id) {
      await remove(id);
      return routers.delete(id);
    },
  };
}

/**
 * 400 naming `name` when a tunneler-enabled router would take a name another identity holds (its identity takes the
 * router's name, and identity names are unique).
 */
export async function checkRouterIdentityName(identities: { findByName(name: string): Promise<{ id: string } | undefined> }, router: Pick<EdgeRouter, 'name' | 'isTunnelerEnabled'>, routerId: string | undefined): Promise<void> {
  if (!router.isTunnelerEnabled) return;
  const holder = await identities.findByName(router.name);
  if (holder && holder.id !== routerId) {
    throw new ApiError('COULD_NOT_VALIDATE', {
      message: `The request is invalid: name '${router.name}' is held by identity ${holder.id}; a tunneler-enabled router's identity takes the router's name`,
      cause: { field: 'name', reason: 'is held by an identity', value: router.name },
    });
  }
}
