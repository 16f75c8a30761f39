/**
 * What a router counts and times for Prometheus, served on its `metrics` web binding (decision 0065): one
 * prom-client Registry per router, never the global one, so several routers in one process (the tests) keep their
 * figures apart, plus the process metrics every svc program exposes. The router records through the typed
 * interface below and never sees prom-client.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { processRegistry } from '../../shared/process-metrics.js';

export type RenewalOutcome = 'success' | 'failure';

export interface RouterMetrics {
  /** The router's own series (without the process metrics). */
  readonly registry: Registry;
  /** One control-channel message sent (`out`) or received (`in`), by its content type's name. */
  controlMessage(direction: 'in' | 'out', type: string): void;
  /** One heartbeat round trip on the control channel, in seconds. */
  controlLatency(seconds: number): void;
  /** Whether a control channel to a controller is up now. */
  controlConnected(up: boolean): void;
  /** The control channel was lost and the router dials again. */
  reconnect(): void;
  /** A certificate renewal ended. */
  renewal(outcome: RenewalOutcome): void;
  /** The Prometheus text exposition (format 0.0.4) of this router and of the process it runs in. */
  exposition(): Promise<{ contentType: string; body: string }>;
}

/**
 * Distinct message type labels kept; later names count as `other`. Type names come from the protocol's catalogue,
 * but a peer may send content types outside it, and each new label value would be a new series held for good.
 */
export const MAX_MESSAGE_TYPES = 64;

/** Round trips on loopback take well under a millisecond; a congested WAN link, seconds. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * @example
 * const metrics = createRouterMetrics();
 * metrics.controlMessage('out', 'heartbeat');
 * const { contentType, body } = await metrics.exposition();
 */
export function createRouterMetrics(): RouterMetrics {
  const registry = new Registry();
  const messages = new Counter({
    name: 'svc_router_control_messages_total',
    help: 'Control-channel messages by direction (in, out) and content type',
    labelNames: ['direction', 'type'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'svc_router_control_latency_seconds',
    help: 'Heartbeat round trip on the control channel',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const connected = new Gauge({ name: 'svc_router_control_connected', help: '1 while a control channel to a controller is up, else 0', registers: [registry] });
  const reconnects = new Counter({ name: 'svc_router_control_reconnects_total', help: 'Control channels lost (each is followed by a new dial)', registers: [registry] });
  const renewals = new Counter({
    name: 'svc_router_certificate_renewals_total',
    help: 'Certificate renewals by outcome (success, failure)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  connected.set(0);
  const types = new Set<string>();
  let merged: Registry | undefined;
  return {
    registry,
    controlMessage(direction, type) {
      if (!types.has(type) && types.size >= MAX_MESSAGE_TYPES) type = 'other';
      types.add(type);
      messages.inc({ direction, type });
    },
    controlLatency: (seconds) => latency.observe(Math.max(0, seconds)),
    controlConnected: (up) => connected.set(up ? 1 : 0),
    reconnect: () => reconnects.inc(),
    renewal: (outcome) => renewals.inc({ outcome }),
    async exposition() {
      // Merged at the first scrape: the process metrics are created only once something asks for them.
      merged ??= Registry.merge([processRegistry(), registry]);
      return { contentType: merged.contentType, body: await merged.metrics() };
    },
  };
}
