/**
 * A service's `host.v1` / `host.v2` config as the router's tunnel hosts it (issue 43, decision 0071): parsed into
 * targets, one per hosting definition (host.v2 `terminators[]`, host.v1 is one), and, for each circuit, the
 * destination it goes to. A definition either fixes protocol, address and port or forwards them from the dialer's
 * AppData (`dst_protocol`, `dst_hostname` / `dst_ip`, `dst_port`, the keys the public tunnelers send), limited by
 * its allowed lists. The router parses the config itself, whatever the controller checked, because a definition it
 * cannot dial must be skipped with a sentence naming the field rather than fail every circuit later. Pure: no I/O.
 *
 * Not used: `allowedSourceAddresses` (it tells an intercepting tunneler which source IPs to add as routes; the router
 * dials from its own address), `portChecks` / `httpChecks`, `listenOptions.identity` and `bindUsingEdgeIdentity`
 * (addressable terminators), `proxy`.
 */
import { BlockList, isIP } from 'node:net';
import { parseStrictJson } from '../../shared/safe-json.js';

export type Protocol = 'tcp' | 'udp';
export type Precedence = 'default' | 'required' | 'failed';

/** The connect timeout when `listenOptions.connectTimeoutSeconds` is absent or 0. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** AppData larger than this is not read (the public tunnelers send a few hundred bytes). */
const MAX_APP_DATA_BYTES = 8_192;

/** One way a forwarded address may be allowed: an IP block, a host name, or a `*.domain` (`*` = any host name). */
type AddressRule = { kind: 'ips'; list: BlockList; text: string } | { kind: 'host'; name: string } | { kind: 'domain'; suffix: string };

/** One hosting definition of one service: what its terminator says and where its circuits go. */
export interface HostTarget {
  serviceId: string;
  serviceName: string;
  encryptionRequired: boolean;
  /** Which definition of the config (host.v2 `terminators[index]`; 0 for host.v1). */
  index: number;
  /** `tcp:host:port`, or `*` in the parts the dialer chooses: the terminator's (informative) address. */
  address: string;
  protocol: { fixed: Protocol } | { allowed: Protocol[] };
  host: { fixed: string } | { allowed: AddressRule[] };
  port: { fixed: number } | { allowed: Array<{ low: number; high: number }> };
  cost?: number;
  precedence: Precedence;
  connectTimeoutMs: number;
  maxConnections?: number;
}

/** Where one circuit goes. */
export interface Destination {
  protocol: Protocol;
  host: string;
  port: number;
}

/** A definition that cannot be hosted: `field` is its path in the config (`terminators[1].port`). */
export interface ConfigProblem {
  field: string;
  problem: string;
}

/** What `parseHostConfig` reads: the shape of one HostedServices answer item. */
export interface HostedConfig {
  id: string;
  name: string;
  encryptionRequired: boolean;
  configType: 'host.v1' | 'host.v2';
  config: Record<string, unknown>;
}

class Problem extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The targets of one service's host config, and the definitions skipped with the reason. A host.v2 config with one
 * bad definition still hosts its good ones.
 *
 * @example parseHostConfig({ id, name: 'web', encryptionRequired: true, configType: 'host.v1', config: { protocol: 'tcp', address: '127.0.0.1', port: 8080 } })
 */
export function parseHostConfig(service: HostedConfig): { targets: HostTarget[]; problems: ConfigProblem[] } {
  const targets: HostTarget[] = [];
  const problems: ConfigProblem[] = [];
  let definitions: Array<{ value: unknown; path: string }>;
  if (service.configType === 'host.v2') {
    const list = service.config.terminators;
    if (!Array.isArray(list) || list.length === 0) return { targets, problems: [{ field: 'terminators', problem: 'must be a non-empty list of hosting definitions' }] };
    definitions = list.map((value, i) => ({ value, path: `terminators[${i}].` }));
  } else {
    definitions = [{ value: service.config, path: '' }];
  }
  definitions.forEach(({ value, path }, index) => {
    try {
      targets.push(parseDefinition(service, value, index, path));
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      problems.push({ field: error.field, problem: error.message });
    }
  });
  return { targets, problems };
}

function parseDefinition(service: HostedConfig, value: unknown, index: number, path: string): HostTarget {
  if (!isRecord(value)) throw new Problem(path.replace(/\.$/, '') || 'config', 'must be an object');
  const at = (key: string) => `${path}${key}`;
  const flag = (key: string): boolean => {
    const v = value[key];
    if (v === undefined) return false;
    if (typeof v !== 'boolean') throw new Problem(at(key), 'must be true or false');
    return v;
  };
  const list = (key: string, because: string): unknown[] => {
    const v = value[key];
    if (!Array.isArray(v) || v.length === 0) throw new Problem(at(key), `is required as a non-empty list when ${because} is true`);
    return v;
  };

  const protocol: HostTarget['protocol'] = flag('forwardProtocol')
    ? { allowed: list('allowedProtocols', 'forwardProtocol').map((p, i) => protocolOf(p, at(`allowedProtocols[${i}]`))) }
    : { fixed: protocolOf(value.protocol, at('protocol')) };
  const host: HostTarget['host'] = flag('forwardAddress')
    ? { allowed: list('allowedAddresses', 'forwardAddress').map((a, i) => addressRule(a, at(`allowedAddresses[${i}]`))) }
    : { fixed: hostOf(value.address, at('address')) };
  const port: HostTarget['port'] = flag('forwardPort')
    ? { allowed: list('allowedPortRanges', 'forwardPort').map((r, i) => portRange(r, at(`allowedPortRanges[${i}]`))) }
    : { fixed: portOf(value.port, at('port'), 1) };

  const options = value.listenOptions ?? {};
  if (!isRecord(options)) throw new Problem(at('listenOptions'), 'must be an object');
  const cost = optionalInteger(options.cost, at('listenOptions.cost'), 0, 65_535);
  const precedence = options.precedence ?? 'default';
  if (precedence !== 'default' && precedence !== 'required' && precedence !== 'failed') {
    throw new Problem(at('listenOptions.precedence'), `'${String(precedence)}' is not one of default, required, failed`);
  }
  const timeoutSeconds = optionalInteger(options.connectTimeoutSeconds, at('listenOptions.connectTimeoutSeconds'), 0, 3_600);
  const maxConnections = optionalInteger(options.maxConnections, at('listenOptions.maxConnections'), 1, 1_000_000);

  const part = <T>(x: { fixed: T } | { allowed: unknown }) => ('fixed' in x ? String(x.fixed) : '*');
  const hostText = 'fixed' in host && isIP(host.fixed) === 6 ? `[${host.fixed}]` : part(host);
  return {
    serviceId: service.id,
    serviceName: service.name,
    encryptionRequired: service.encryptionRequired,
    index,
    address: `${part(protocol)}:${hostText}:${part(port)}`,
    protocol,
    host,
    port,
    ...(cost !== undefined ? { cost } : {}),
    precedence,
    connectTimeoutMs: timeoutSeconds ? timeoutSeconds * 1_000 : DEFAULT_CONNECT_TIMEOUT_MS,
    ...(maxConnections !== undefined ? { maxConnections } : {}),
  };
}

/**
 * Where one circuit to `target` goes: the fixed parts, and the forwarded ones from the dialer's AppData when they are
 * allowed. `{ refused }` is a sentence naming the service and what was not allowed or missing.
 */
export function resolveDestination(target: HostTarget, appData: Buffer | undefined): Destination | { refused: string } {
  const config = target.index === 0 ? 'its host config' : `its host config's terminators[${target.index}]`;
  const refuse = (what: string) => ({ refused: `service '${target.serviceName}': ${what}` });
  const forwards = !('fixed' in target.protocol && 'fixed' in target.host && 'fixed' in target.port);
  let data: Record<string, unknown> = {};
  if (forwards) {
    const read = readAppData(appData);
    if (typeof read === 'string') return refuse(read);
    data = read;
  }
  const text = (key: string): string | undefined => {
    const v = data[key];
    if (typeof v === 'string' && v.length > 0) return v;
    return typeof v === 'number' ? String(v) : undefined;
  };

  let protocol: Protocol;
  if ('fixed' in target.protocol) protocol = target.protocol.fixed;
  else {
    const asked = text('dst_protocol')?.toLowerCase();
    if (asked === undefined) return refuse(`the dialer sent no dst_protocol, which ${config} forwards`);
    if (!target.protocol.allowed.includes(asked as Protocol)) return refuse(`the dialer asked for protocol '${asked}', which allowedProtocols of ${config} does not allow`);
    protocol = asked as Protocol;
  }

  let host: string;
  if ('fixed' in target.host) host = target.host.fixed;
  else {
    // As upstream: the host name the dialer intercepted wins over the IP it resolved to.
    const asked = text('dst_hostname') ?? text('dst_ip');
    if (asked === undefined) return refuse(`the dialer sent neither dst_hostname nor dst_ip, which ${config} forwards`);
    if (!addressAllowed(target.host.allowed, asked)) return refuse(`the dialer asked for address '${asked}', which allowedAddresses of ${config} does not allow`);
    host = asked;
  }

  let port: number;
  if ('fixed' in target.port) port = target.port.fixed;
  else {
    const asked = text('dst_port');
    if (asked === undefined) return refuse(`the dialer sent no dst_port, which ${config} forwards`);
    port = /^\d{1,5}$/.test(asked) ? Number(asked) : NaN;
    if (!(port >= 1 && port <= 65_535)) return refuse(`the dialer asked for port '${asked}', which is not a port number`);
    if (!target.port.allowed.some((r) => port >= r.low && port <= r.high)) return refuse(`the dialer asked for port ${port}, which allowedPortRanges of ${config} does not allow`);
  }
  return { protocol, host, port };
}

function readAppData(appData: Buffer | undefined): Record<string, unknown> | string {
  if (!appData || appData.length === 0) return 'the dialer sent no AppData, but its host config forwards the destination from it';
  if (appData.length > MAX_APP_DATA_BYTES) return `the dialer's AppData is ${appData.length} bytes, more than the ${MAX_APP_DATA_BYTES} read`;
  try {
    const value = parseStrictJson(appData.toString('utf8').replace(/\0+$/, ''), { maxDepth: 4 });
    if (isRecord(value)) return value;
  } catch {
    // Answered below.
  }
  return "the dialer's AppData is not a JSON object";
}

function addressAllowed(rules: AddressRule[], asked: string): boolean {
  const name = asked.toLowerCase();
  const family = isIP(name);
  return rules.some((rule) => {
    if (rule.kind === 'ips') return family !== 0 && rule.list.check(name, family === 4 ? 'ipv4' : 'ipv6');
    if (family !== 0) return false;
    if (rule.kind === 'host') return name === rule.name;
    return rule.suffix === '' || name.endsWith(`.${rule.suffix}`) || name === rule.suffix;
  });
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

function addressRule(value: unknown, field: string): AddressRule {
  if (typeof value !== 'string' || value.length === 0) throw new Problem(field, 'must be an IP address, a CIDR, a host name or *.domain');
  const text = value.toLowerCase();
  if (text === '*') return { kind: 'domain', suffix: '' };
  if (text.startsWith('*.')) {
    if (!HOST_NAME.test(text.slice(2))) throw new Problem(field, `'${value}' is not *.<domain>`);
    return { kind: 'domain', suffix: text.slice(2) };
  }
  const cidr = /^([^/]+)\/(\d{1,3})$/.exec(text);
  if (cidr) {
    const [, ip, bits] = cidr as unknown as [string, string, string];
    const family = isIP(ip);
    if (family === 0 || Number(bits) > (family === 4 ? 32 : 128)) throw new Problem(field, `'${value}' is not a CIDR (<ip>/<prefix length>)`);
    const list = new BlockList();
    list.addSubnet(ip, Number(bits), family === 4 ? 'ipv4' : 'ipv6');
    return { kind: 'ips', list, text };
  }
  const family = isIP(text);
  if (family !== 0) {
    const list = new BlockList();
    list.addAddress(text, family === 4 ? 'ipv4' : 'ipv6');
    return { kind: 'ips', list, text };
  }
  if (!HOST_NAME.test(text)) throw new Problem(field, `'${value}' is not an IP address, a CIDR, a host name or *.domain`);
  return { kind: 'host', name: text.replace(/\.$/, '') };
}

function protocolOf(value: unknown, field: string): Protocol {
  if (value === 'tcp' || value === 'udp') return value;
  throw new Problem(field, value === undefined ? 'is required: tcp or udp' : `'${String(value)}' is not tcp or udp`);
}

function hostOf(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new Problem(field, 'is required: the host name or IP address to dial');
  const bare = value.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) === 0 && !HOST_NAME.test(bare)) throw new Problem(field, `'${value}' is not a host name or IP address`);
  return bare;
}

function portOf(value: unknown, field: string, min: number): number {
  if (value === undefined) throw new Problem(field, 'is required: the port to dial');
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > 65_535) throw new Problem(field, `${JSON.stringify(value)} is not a port (${min}-65535)`);
  return value as number;
}

function portRange(value: unknown, field: string): { low: number; high: number } {
  if (!isRecord(value)) throw new Problem(field, 'must be {low, high}');
  const low = portOf(value.low, `${field}.low`, 0);
  const high = portOf(value.high, `${field}.high`, 0);
  if (low > high) throw new Problem(field, `low ${low} is above high ${high}`);
  return { low, high };
}

function optionalInteger(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) throw new Problem(field, `${JSON.stringify(value)} is not a whole number from ${min} to ${max}`);
  return value as number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
