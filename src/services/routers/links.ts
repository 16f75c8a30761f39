/**
 * Router links at the controller (issue 43; decision 0070): what a router reports it dialed (LinkReport, whole each
 * time) is stored as it says; a router's links go when its control channel closes here; and the routing graph dials
 * choose paths over is read from the store at most once per `graphTtlMs` (two queries: every router, every link), or
 * again at once after a report here, so a dial never costs a query per router or per link.
 */
import type { LinkReport } from '../../control-protocol/bodies.js';
import type { LinkRepository } from '../../persistence/repositories/links.js';
import type { RoutingRouter } from '../../persistence/repositories/router-presence.js';
import { routingGraph, type RoutingGraph } from '../../policy/router-paths.js';
import type { Clock } from '../../shared/clock.js';

/** How long a routing graph read from the store serves dials (routers elsewhere change presence within this). */
export const GRAPH_TTL_MS = 1_000;

export interface LinkService {
  /** Router `routerId`'s dialed links become exactly those of `report`; answers how many were kept. */
  report(routerId: string, report: LinkReport): Promise<number>;
  /** Its control channel closed here at `at`: its links reported until then go. */
  forget(routerId: string, at: Date): Promise<void>;
  /** The routing graph, read at most once per GRAPH_TTL_MS; `fresh`: read now (a refusal is never based on an older one). */
  graph(options?: { fresh?: boolean }): Promise<RoutingGraph>;
}

export function createLinkService(deps: {
  links: Pick<LinkRepository, 'replaceOf' | 'removeOf' | 'all'>;
  routers: { routingRouters(): Promise<RoutingRouter[]> };
  clock: Clock;
  graphTtlMs?: number;
}): LinkService {
  const ttl = deps.graphTtlMs ?? GRAPH_TTL_MS;
  let cached: { graph: Promise<RoutingGraph>; readAt: number } | undefined;
  const invalidate = () => (cached = undefined);

  return {
    async report(routerId, report) {
      const links = report.links.map((link) => ({ id: link.id, destRouterId: link.peerRouterId, state: link.state, latencyMs: link.latencyMs, dialAddress: link.dialAddress }));
      const kept = await deps.links.replaceOf(routerId, links, deps.clock.now());
      invalidate();
      return kept.length;
    },
    async forget(routerId, at) {
      await deps.links.removeOf(routerId, at);
      invalidate();
    },
    graph(options = {}) {
      const now = deps.clock.now().getTime();
      if (!options.fresh && cached && now - cached.readAt < ttl) return cached.graph;
      // Concurrent dials share one read; a failed read is not kept.
      const graph = Promise.all([deps.routers.routingRouters(), deps.links.all()]).then(([routers, links]) => routingGraph(routers, links));
      const entry = { graph, readAt: now };
      cached = entry;
      graph.catch(() => {
        if (cached === entry) cached = undefined;
      });
      return graph;
    },
  };
}
