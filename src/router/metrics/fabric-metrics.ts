/**
 * What the router counts of links and circuits (issue 43), on the router's own registry: links up, link probe round
 * trips, circuits that began here, and link dials by outcome. Labels are fixed sets: a network of many routers does
 * not grow the series (latency per peer is in the controller's GET /links, not here).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface FabricMetrics {
  links(count: number): void;
  probe(seconds: number): void;
  circuits(open: number): void;
  linkDial(outcome: 'success' | 'failed' | 'refused'): void;
}

const PROBE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

export function createFabricMetrics(registry: Registry): FabricMetrics {
  const links = new Gauge({ name: 'svc_router_links', help: 'Links to other routers up now (dialed or accepted)', registers: [registry] });
  const probes = new Histogram({ name: 'svc_router_link_probe_seconds', help: 'Round trips of answered link latency probes', buckets: PROBE_BUCKETS, registers: [registry] });
  const circuits = new Gauge({ name: 'svc_router_circuits', help: 'Circuits that began at this router and are up', registers: [registry] });
  const dials = new Counter({ name: 'svc_router_link_dials_total', help: 'Link dials by outcome', labelNames: ['outcome'] as const, registers: [registry] });
  links.set(0);
  circuits.set(0);
  return {
    links: (count) => links.set(count),
    probe: (seconds) => probes.observe(seconds),
    circuits: (open) => circuits.set(open),
    linkDial: (outcome) => dials.inc({ outcome }),
  };
}
