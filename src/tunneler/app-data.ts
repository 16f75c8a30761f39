/**
 * The AppData a client tunneler sends with each dial (header 1011), as the public tunnelers send it: a JSON object of
 * strings, so that a hosting side whose host.v1 forwards the protocol, address or port (`forwardProtocol`,
 * `forwardAddress`, `forwardPort`) knows what was intercepted. Fields (openziti/ziti-tunnel-sdk-c's tunneler app
 * data model): `dst_protocol`, `dst_ip` or `dst_hostname` (what the client meant to reach: the intercept address, not
 * the local listener standing in for it; neither for a CIDR or wildcard, whose member the proxy cannot know),
 * `dst_port` (the intercepted port, before any offset), `src_protocol`, `src_ip`, `src_port` (the local client), and
 * `source_addr` when the config's `sourceIp` asks for one. Pure.
 */
import type { Intercept } from './intercept-plan.js';

export interface Peer {
  address: string;
  port: number;
}

/**
 * `sourceIp` with its variables replaced: `$src_ip`, `$src_port`, `$dst_ip`, `$dst_port`, `$tunneler_id.name`.
 * Undefined when it names another variable (`$tunneler_id.tag[…]` needs the identity's tags, which a client tunneler
 * does not read): sending it half-filled would make the hosting side spoof a nonsense address.
 */
export function sourceAddress(template: string, values: Record<string, string>): string | undefined {
  const filled = template.replace(/\$(tunneler_id\.name|src_ip|src_port|dst_ip|dst_port)/g, (_m, name: string) => values[name] ?? '');
  return filled.includes('$') ? undefined : filled;
}

/** The AppData JSON for one intercepted connection (TCP) or flow (UDP) from `source`. */
export function appDataFor(intercept: Intercept, source: Peer, tunnelerName: string): Buffer {
  const data: Record<string, string> = { dst_protocol: intercept.protocol };
  const { kind, text } = intercept.address;
  if (kind === 'hostname') data.dst_hostname = text;
  if (kind === 'loopback' || kind === 'ip') data.dst_ip = text;
  data.dst_port = String(intercept.port);
  data.src_protocol = intercept.protocol;
  data.src_ip = source.address;
  data.src_port = String(source.port);
  if (intercept.sourceIp) {
    const filled = sourceAddress(intercept.sourceIp, { src_ip: source.address, src_port: String(source.port), dst_ip: data.dst_ip ?? '', dst_port: data.dst_port, 'tunneler_id.name': tunnelerName });
    if (filled !== undefined) data.source_addr = filled;
  }
  return Buffer.from(JSON.stringify(data));
}
