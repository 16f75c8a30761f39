/**
 * The paths a dial may take from the asking router to the routers hosting a service (issue 43; decision 0070): the
 * cheapest path to every reachable router, over usable links (both ends online, state `up`), taken in either
 * direction (a link carries traffic both ways whoever dialed it). A path's cost is, for each link, LINK_COST plus its
 * latency in milliseconds, plus the `cost` of every router it enters (the first router's own cost is the same for
 * every path, so it is left out). LINK_COST makes each hop count even where latency rounds to 0 ms (one machine, one
 * rack): a router in between costs forwarding work, so of two equally fast paths the shorter wins. A path has at most
 * MAX_PATH_ROUTERS routers (what a Route carries). A `noTraversal` router may be a path's first or last router, never
 * one in between.
 * Pure: the graph is given; Dijkstra over a binary heap, O((R + L) log R).
 */

/** What the choice reads of a router. */
export interface GraphRouter {
  id: string;
  online: boolean;
  cost: number;
  noTraversal: boolean;
}

/** What the choice reads of a link. */
export interface GraphLink {
  id: string;
  sourceRouterId: string;
  destRouterId: string;
  state: string;
  latencyMs: number | null;
}

/** A link whose latency is not measured yet counts as this slow, so a measured one is preferred. */
export const UNMEASURED_LINK_MS = 1_000;
/** What every link of a path costs besides its latency (upstream's links have a static cost of 1 too). */
export const LINK_COST = 1;
/** The most routers one path may have: a Route between routers carries at most this many. */
export const MAX_PATH_ROUTERS = 16;

/** The cheapest path to one router: its routers from the source, the links between them and its cost. */
export interface RouterPath {
  path: string[];
  links: string[];
  cost: number;
}

/** The routing graph once built: adjacency by router id, kept for many dials. */
export interface RoutingGraph {
  routers: ReadonlyMap<string, GraphRouter>;
  /** Usable links by router id: the router at the other end and the link. */
  edges: ReadonlyMap<string, ReadonlyArray<{ to: string; linkId: string; weight: number }>>;
}

/** Builds the graph: only links that are `up` between two known, online routers are kept. */
export function routingGraph(routers: readonly GraphRouter[], links: readonly GraphLink[]): RoutingGraph {
  const byId = new Map(routers.map((router) => [router.id, router]));
  const edges = new Map<string, Array<{ to: string; linkId: string; weight: number }>>();
  const add = (from: string, to: string, linkId: string, weight: number) => {
    const list = edges.get(from);
    if (list) list.push({ to, linkId, weight });
    else edges.set(from, [{ to, linkId, weight }]);
  };
  for (const link of links) {
    const a = byId.get(link.sourceRouterId);
    const b = byId.get(link.destRouterId);
    if (link.state !== 'up' || !a?.online || !b?.online || a.id === b.id) continue;
    const weight = LINK_COST + (link.latencyMs ?? UNMEASURED_LINK_MS);
    add(a.id, b.id, link.id, weight);
    add(b.id, a.id, link.id, weight);
  }
  return { routers: byId, edges };
}

/** A min-heap of [cost, router id]. */
class Heap {
  private readonly items: Array<[number, string]> = [];
  get size() {
    return this.items.length;
  }
  push(item: [number, string]) {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((items[parent] as [number, string])[0] <= item[0]) break;
      items[i] = items[parent] as [number, string];
      i = parent;
    }
    items[i] = item;
  }
  pop(): [number, string] | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && (items[right] as [number, string])[0] < (items[left] as [number, string])[0] ? right : left;
      if ((items[child] as [number, string])[0] >= last[0]) break;
      items[i] = items[child] as [number, string];
      i = child;
    }
    items[i] = last;
    return top;
  }
}

/**
 * The cheapest path from `sourceId` to every router reachable from it (itself included, at cost 0). The source is
 * taken as online whatever the graph says: it is the router asking, over its control channel.
 *
 * @example cheapestPaths(routingGraph(routers, links), 'r1').get('r3') // { path: ['r1', 'r2', 'r3'], links: ['l1', 'l2'], cost: 12 }
 */
export function cheapestPaths(graph: RoutingGraph, sourceId: string): Map<string, RouterPath> {
  const found = new Map<string, RouterPath>();
  const best = new Map<string, number>([[sourceId, 0]]);
  const routersOn = new Map<string, number>([[sourceId, 1]]);
  const via = new Map<string, { from: string; linkId: string }>();
  const heap = new Heap();
  heap.push([0, sourceId]);
  const settled = new Set<string>();
  for (let next = heap.pop(); next !== undefined; next = heap.pop()) {
    const [cost, id] = next;
    if (settled.has(id)) continue;
    settled.add(id);
    // A no-traversal router ends paths: it is reached, never passed through (unless it is where they start).
    if (id !== sourceId && graph.routers.get(id)?.noTraversal) continue;
    const length = routersOn.get(id) ?? 1;
    if (length >= MAX_PATH_ROUTERS) continue;
    for (const edge of graph.edges.get(id) ?? []) {
      if (settled.has(edge.to)) continue;
      const total = cost + edge.weight + (graph.routers.get(edge.to)?.cost ?? 0);
      if (total < (best.get(edge.to) ?? Number.POSITIVE_INFINITY)) {
        best.set(edge.to, total);
        routersOn.set(edge.to, length + 1);
        via.set(edge.to, { from: id, linkId: edge.linkId });
        heap.push([total, edge.to]);
      }
    }
  }
  for (const id of settled) {
    const path = [id];
    const links: string[] = [];
    for (let step = via.get(id); step !== undefined; step = via.get(step.from)) {
      path.push(step.from);
      links.push(step.linkId);
    }
    found.set(id, { path: path.reverse(), links: links.reverse(), cost: best.get(id) ?? 0 });
  }
  return found;
}
