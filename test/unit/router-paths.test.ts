/**
 * Path choice over the routing graph (policy/router-paths.ts; decision 0070): cheapest by latency plus entered
 * routers' cost, links usable in either direction only when up between online routers, no-traversal routers only at
 * the ends, and the source taken as online.
 *
 * @store-independent: pure functions, no store.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cheapestPaths, LINK_COST, MAX_PATH_ROUTERS, routingGraph, UNMEASURED_LINK_MS, type GraphLink, type GraphRouter } from '../../src/policy/router-paths.js';

const router = (id: string, more: Partial<GraphRouter> = {}): GraphRouter => ({ id, online: true, cost: 0, noTraversal: false, ...more });
const link = (id: string, from: string, to: string, latencyMs: number | null = 1, state = 'up'): GraphLink => ({ id, sourceRouterId: from, destRouterId: to, state, latencyMs });

describe('router paths', () => {
  it('takes the path of least latency plus the cost of the routers it enters', () => {
    const graph = routingGraph([router('a'), router('b', { cost: 10 }), router('c'), router('d')], [link('ab', 'a', 'b', 1), link('bc', 'b', 'c', 1), link('ad', 'a', 'd', 5), link('dc', 'd', 'c', 5)]);
    assert.deepEqual(cheapestPaths(graph, 'a').get('c'), { path: ['a', 'd', 'c'], links: ['ad', 'dc'], cost: 10 + 2 * LINK_COST });
    assert.deepEqual(cheapestPaths(graph, 'a').get('a'), { path: ['a'], links: [], cost: 0 });
  });

  it('uses a link in either direction, but not a stalled one nor one with an offline end', () => {
    const routers = [router('a'), router('b'), router('c', { online: false })];
    const graph = routingGraph(routers, [link('ba', 'b', 'a'), link('ac', 'a', 'c'), link('ab-stalled', 'a', 'b', 0, 'stalled')]);
    assert.deepEqual(cheapestPaths(graph, 'a').get('b')?.links, ['ba']);
    assert.equal(cheapestPaths(graph, 'a').has('c'), false);
  });

  it('ends paths at a no-traversal router unless the path starts there', () => {
    const graph = routingGraph([router('a'), router('b', { noTraversal: true }), router('c')], [link('ab', 'a', 'b'), link('bc', 'b', 'c')]);
    assert.deepEqual(cheapestPaths(graph, 'a').get('b')?.path, ['a', 'b']);
    assert.equal(cheapestPaths(graph, 'a').has('c'), false);
    assert.deepEqual(cheapestPaths(graph, 'b').get('c')?.path, ['b', 'c']);
  });

  it('counts an unmeasured link as slow, and a source missing from the graph as online', () => {
    const graph = routingGraph([router('a'), router('b')], [link('ab-new', 'a', 'b', null)]);
    assert.equal(cheapestPaths(graph, 'a').get('b')?.cost, LINK_COST + UNMEASURED_LINK_MS);
    assert.deepEqual([...cheapestPaths(graph, 'zz').keys()], ['zz']);
  });

  it('takes the direct link over two links when all of them measure 0 ms (each hop counts)', () => {
    const graph = routingGraph([router('a'), router('b'), router('c')], [link('ab', 'a', 'b', 0), link('bc', 'b', 'c', 0), link('ac', 'a', 'c', 0)]);
    assert.deepEqual(cheapestPaths(graph, 'a').get('c')?.path, ['a', 'c']);
  });

  it(`finds no path longer than ${MAX_PATH_ROUTERS} routers (what a Route carries)`, () => {
    const names = Array.from({ length: MAX_PATH_ROUTERS + 2 }, (_, i) => `r${i}`);
    const chain = names.slice(1).map((name, i) => link(`l${i}`, names[i]!, name, 1));
    const paths = cheapestPaths(routingGraph(names.map((name) => router(name)), chain), 'r0');
    assert.equal(paths.get(names[MAX_PATH_ROUTERS - 1]!)?.path.length, MAX_PATH_ROUTERS);
    assert.equal(paths.has(names[MAX_PATH_ROUTERS]!), false);
  });

  it('answers 100 routers and 1000 links in one pass per dial', () => {
    const routers = Array.from({ length: 100 }, (_, i) => router(`r${i}`, { cost: i % 7 }));
    // Every router links to the next ten (a ring of chords): 1000 links.
    const links = routers.flatMap((_, i) => Array.from({ length: 10 }, (_, k) => link(`l${i}-${k}`, `r${i}`, `r${(i + k + 1) % 100}`, ((i * 31 + k * 17) % 50) + 1)));
    const graph = routingGraph(routers, links);
    const paths = cheapestPaths(graph, 'r0');
    assert.equal(paths.size, 100);
    for (const [id, found] of paths) {
      assert.equal(found.path[0], 'r0');
      assert.equal(found.path.at(-1), id);
      assert.equal(found.links.length, found.path.length - 1);
    }
  });
});
