/**
 * Edge routers read with their online status (decision 0064): wraps the reads of an edge router repository so each
 * page of routers costs one presence query beside its own, and every API that shows routers (management, client,
 * sessions, a service's routers) shows the same status without asking for it router by router.
 */
import type { EdgeRouter } from '../../domain/edge-router.js';
import type { EdgeRouterRepository } from '../../persistence/repositories/edge-routers.js';
import type { RouterStatusReader } from './presence.js';

/** The given routers with `connection` set to their status, in one read. */
export async function routersWithStatus(routers: EdgeRouter[], status: RouterStatusReader): Promise<EdgeRouter[]> {
  if (routers.length === 0) return routers;
  const found = await status.statusOf(routers.map((router) => router.id));
  return routers.map((router) => ({ ...router, connection: found.get(router.id) ?? router.connection }));
}

/** `repository` whose `list`, `findById` and `findByName` answer routers with their status; writes pass through. */
export function withRouterStatus<R extends Pick<EdgeRouterRepository, 'list'> & Partial<Pick<EdgeRouterRepository, 'findById' | 'findByName'>>>(
  repository: R,
  status: RouterStatusReader | undefined,
): R {
  if (!status) return repository;
  const one = async (router: EdgeRouter | undefined) => (router ? (await routersWithStatus([router], status))[0] : undefined);
  const { findById, findByName } = repository;
  return {
    ...repository,
    async list(query, restriction) {
      const page = await repository.list(query, restriction);
      return { ...page, items: await routersWithStatus(page.items, status) };
    },
    ...(findById ? { findById: async (id: string) => one(await findById(id)) } : {}),
    ...(findByName ? { findByName: async (name: string) => one(await findByName(name)) } : {}),
  };
}
