/**
 * What the router counts on its SDK edge listener (issue 42), on the router's own registry (router-metrics.ts):
 * channels open, connections relayed, dials and binds by outcome, bytes relayed and the times the relay paused a
 * sender because its peer was not reading (backpressure). Labels are fixed sets, so a peer cannot grow the series.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export type EdgeOutcome = 'success' | 'refused' | 'failed';

export interface EdgeMetrics {
  channels(delta: number): void;
  connections(delta: number): void;
  hello(outcome: EdgeOutcome): void;
  dial(outcome: EdgeOutcome, seconds?: number): void;
  bind(outcome: EdgeOutcome): void;
  relayed(bytes: number): void;
  paused(): void;
  protocolError(): void;
}

const DIAL_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export function createEdgeMetrics(registry: Registry): EdgeMetrics {
  const channels = new Gauge({ name: 'svc_router_edge_channels', help: 'SDK channels open on the edge listener', registers: [registry] });
  const connections = new Gauge({ name: 'svc_router_edge_connections', help: 'SDK connections (each end of a circuit) open on this router', registers: [registry] });
  const hellos = new Counter({ name: 'svc_router_edge_hellos_total', help: 'SDK Hellos by outcome', labelNames: ['outcome'] as const, registers: [registry] });
  const dials = new Counter({ name: 'svc_router_edge_dials_total', help: 'Dials (Connect) by outcome', labelNames: ['outcome'] as const, registers: [registry] });
  const dialSeconds = new Histogram({ name: 'svc_router_edge_dial_seconds', help: 'Time from Connect to StateConnected', buckets: DIAL_BUCKETS, registers: [registry] });
  const binds = new Counter({ name: 'svc_router_edge_binds_total', help: 'Binds by outcome', labelNames: ['outcome'] as const, registers: [registry] });
  const bytes = new Counter({ name: 'svc_router_edge_relayed_bytes_total', help: 'Data bytes relayed between SDK connections', registers: [registry] });
  const pauses = new Counter({ name: 'svc_router_edge_backpressure_pauses_total', help: 'Times a sender was paused because its peer did not read', registers: [registry] });
  const errors = new Counter({ name: 'svc_router_edge_protocol_errors_total', help: 'SDK channels closed for malformed frames', registers: [registry] });
  channels.set(0);
  connections.set(0);
  return {
    channels: (delta) => channels.inc(delta),
    connections: (delta) => connections.inc(delta),
    hello: (outcome) => hellos.inc({ outcome }),
    dial(outcome, seconds) {
      dials.inc({ outcome });
      if (seconds !== undefined) dialSeconds.observe(seconds);
    },
    bind: (outcome) => binds.inc({ outcome }),
    relayed: (n) => bytes.inc(n),
    paused: () => pauses.inc(),
    protocolError: () => errors.inc(),
  };
}
