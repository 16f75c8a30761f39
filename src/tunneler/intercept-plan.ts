/**
 * What the client tunneler listens on for a set of dialable services (docs/decisions/0072): for each service's
 * intercept.v1 config, each protocol, address and port, the local address:port it listens on, or why it does not.
 * A loopback literal (127.0.0.0/8, ::1) is listened on as is; any other address (host name, wildcard, CIDR, another
 * IP) could only be captured with root (a TUN device or TPROXY rules), so it is listened on at the bind address
 * instead and the table says so. All ports move by the port offset. A service opens at most `maxPorts` ports; two
 * intercepts that land on one local address:port share the first one's listener. Pure and deterministic: services by
 * name, then the config's order.
 */
import { parseInterceptV1, type InterceptAddress, type InterceptProtocol } from './intercept-config.js';

export const INTERCEPT_V1 = 'intercept.v1';

/** A service the identity may dial, with its intercept.v1 config (as the controller sent it). */
export interface DialableService {
  id: string;
  name: string;
  config: unknown;
}

export interface PlanOptions {
  /** Where addresses that cannot be captured without root are listened on. */
  bindHost: string;
  /** Added to every intercepted port to make the local port. */
  portOffset: number;
  /** The most ports one service may open. */
  maxPorts: number;
}

/** One intercepted protocol, address and port, and where it is (or is not) listened on. */
export interface Intercept {
  serviceId: string;
  serviceName: string;
  protocol: InterceptProtocol;
  address: InterceptAddress;
  port: number;
  listenHost: string;
  listenPort: number;
  dialTimeoutMs?: number;
  sourceIp?: string;
  /** Set when this intercept gets no listener of its own: why (the table's state). */
  blocked?: string;
  /** Set when the address is not captured as is: the table says the listener stands in for it. */
  substituted: boolean;
}

export interface Plan {
  intercepts: Intercept[];
  /** Sentences about services or ports left out (a malformed config, ports over the cap). */
  notes: string[];
}

/** A listener's identity: one per protocol and local address:port. */
export const listenerKey = (i: Pick<Intercept, 'protocol' | 'listenHost' | 'listenPort'>): string => `${i.protocol} ${i.listenHost} ${i.listenPort}`;

/** `host:port`, brackets around an IPv6 host. */
export const hostPort = (host: string, port: number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** The distinct ports of the ranges in ascending order, at most `max`; and the ones left over, as ranges text. */
function portsOf(ranges: Array<{ low: number; high: number }>, max: number): { ports: number[]; skipped: string[] } {
  const all = new Set<number>();
  for (const { low, high } of ranges) for (let p = low; p <= high && all.size <= max + 1; p++) all.add(p);
  const sorted = [...all].sort((a, b) => a - b);
  const skipped: string[] = [];
  if (sorted.length > max) {
    const first = sorted[max] as number;
    const last = Math.max(...ranges.map((r) => r.high));
    skipped.push(first === last ? String(first) : `${first}-${last}`);
  }
  return { ports: sorted.slice(0, max), skipped };
}

/** The plan for `services`; see the module comment. */
export function planIntercepts(services: readonly DialableService[], options: PlanOptions): Plan {
  const intercepts: Intercept[] = [];
  const notes: string[] = [];
  const taken = new Map<string, Intercept>();
  const ordered = [...services].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const service of ordered) {
    const parsed = parseInterceptV1(service.config);
    if (!parsed.ok) {
      notes.push(`service '${service.name}' is not intercepted: its ${INTERCEPT_V1} config is malformed: ${parsed.problem}`);
      continue;
    }
    const config = parsed.value;
    const { ports, skipped } = portsOf(config.portRanges, options.maxPorts);
    if (skipped.length > 0) notes.push(`service '${service.name}': ports ${skipped.join(', ')} are not listened on: a service opens at most ${options.maxPorts} ports`);
    for (const protocol of config.protocols) {
      for (const address of config.addresses) {
        for (const port of ports) {
          const substituted = address.kind !== 'loopback';
          const listenHost = substituted ? options.bindHost : address.text;
          const listenPort = port + options.portOffset;
          const intercept: Intercept = { serviceId: service.id, serviceName: service.name, protocol, address, port, listenHost, listenPort, substituted };
          if (config.dialTimeoutMs !== undefined) intercept.dialTimeoutMs = config.dialTimeoutMs;
          if (config.sourceIp !== undefined) intercept.sourceIp = config.sourceIp;
          // Table cells are cut at 48 characters: the states say what is wrong, the row's columns say where.
          if (port === 0) intercept.blocked = 'cannot listen: port 0';
          else if (listenPort < 1 || listenPort > 65535) intercept.blocked = `cannot listen: offset port ${listenPort} is invalid`;
          else {
            const first = taken.get(listenerKey(intercept));
            if (first) intercept.blocked = first.serviceId === service.id ? `shares the listener of ${hostPort(first.address.text, first.port)}` : `cannot listen: used by service '${first.serviceName}'`;
            else taken.set(listenerKey(intercept), intercept);
          }
          intercepts.push(intercept);
        }
      }
    }
  }
  return { intercepts, notes };
}
