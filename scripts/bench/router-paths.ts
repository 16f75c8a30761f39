/**
 * Micro bench of the dial decision's path choice (decision 0070): building the routing graph (once a second per
 * controller) and one Dijkstra (once per dial) for 100 routers and 1,000 links. Run: npx tsx scripts/bench/router-paths.ts
 */
import { cheapestPaths, routingGraph } from '../../src/policy/router-paths.js';
const routers = Array.from({ length: 100 }, (_, i) => ({ id: `r${i}`, online: true, cost: i % 7, noTraversal: false }));
const links = routers.flatMap((_, i) => Array.from({ length: 10 }, (_, k) => ({ id: `l${i}-${k}`, sourceRouterId: `r${i}`, destRouterId: `r${(i + k + 1) % 100}`, state: 'up', latencyMs: ((i * 31 + k * 17) % 50) + 1 })));
const N = 2000;
let t = process.hrtime.bigint();
for (let i = 0; i < N; i++) routingGraph(routers, links);
const build = Number(process.hrtime.bigint() - t) / N / 1e3;
const g = routingGraph(routers, links);
t = process.hrtime.bigint();
for (let i = 0; i < N; i++) cheapestPaths(g, `r${i % 100}`);
const dij = Number(process.hrtime.bigint() - t) / N / 1e3;
console.log(`graph build ${build.toFixed(1)} us, cheapestPaths ${dij.toFixed(1)} us per dial (100 routers, 1000 links)`);
