/**
 * The `intercept.v1` config as the client tunneler reads it: which protocols, addresses and port ranges a service is
 * reached at, and the dial options it uses. The controller checks the config type's JSON Schema when a config is
 * written, but not everything a tunneler needs (a range whose low is above its high, a CIDR with a bad prefix), and a
 * tunneler may be pointed at another controller: so every field is checked here, and a config that cannot be used
 * yields one sentence naming the field. Pure.
 */
import { BlockList, isIP } from 'node:net';

export type InterceptProtocol = 'tcp' | 'udp';

/** How an intercept address can be captured: as is (a loopback literal) or only on the tunneler's bind address. */
export type AddressKind = 'loopback' | 'ip' | 'cidr' | 'hostname' | 'wildcard';

export interface InterceptAddress {
  text: string;
  kind: AddressKind;
}

export interface InterceptConfig {
  protocols: InterceptProtocol[];
  addresses: InterceptAddress[];
  portRanges: Array<{ low: number; high: number }>;
  /** `dialOptions.connectTimeoutSeconds`, in ms. */
  dialTimeoutMs?: number;
  /** `sourceIp`: the source address the hosting side should present (a template such as `$src_ip:$src_port`). */
  sourceIp?: string;
}

export type ConfigCheck = { ok: true; value: InterceptConfig } | { ok: false; problem: string };

const LABEL = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;

const isHostname = (text: string): boolean => text.length <= 253 && text.replace(/\.$/, '').split('.').every((label) => LABEL.test(label));

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** 127.0.0.0/8 and ::1, however written: what an unprivileged process may listen on as is. */
export function isLoopbackLiteral(text: string): boolean {
  const family = isIP(text);
  return family !== 0 && LOOPBACK.check(text, family === 4 ? 'ipv4' : 'ipv6');
}

/** The kind of an intercept address, or the reason it is none. */
export function addressKind(text: string): AddressKind | string {
  if (isIP(text) !== 0) return isLoopbackLiteral(text) ? 'loopback' : 'ip';
  const slash = text.indexOf('/');
  if (slash > 0) {
    const family = isIP(text.slice(0, slash));
    const prefix = text.slice(slash + 1);
    const max = family === 4 ? 32 : 128;
    if (family !== 0 && /^\d{1,3}$/.test(prefix) && Number(prefix) <= max) return 'cidr';
    return `'${text}' is not a valid CIDR block (an IP address, '/', a prefix length up to ${family === 6 ? 128 : 32})`;
  }
  if (text.startsWith('*.') && isHostname(text.slice(2))) return 'wildcard';
  if (isHostname(text) && !/^[\d.]+$/.test(text)) return 'hostname';
  return `'${text}' is not an IP address, a CIDR block, a host name or a *.domain wildcard`;
}

const isPort = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 65535;

function listOf(config: Record<string, unknown>, field: string): unknown[] | string {
  const value = config[field];
  if (!Array.isArray(value) || value.length === 0) return `field '${field}' must be a non-empty list`;
  return value;
}

/** Checks an `intercept.v1` config; the problem names the field (`addresses[1]`, `portRanges[0].high`, …). */
export function parseInterceptV1(config: unknown): ConfigCheck {
  const fail = (problem: string): ConfigCheck => ({ ok: false, problem });
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return fail('the config is not a JSON object');
  const c = config as Record<string, unknown>;

  const protocols = listOf(c, 'protocols');
  if (typeof protocols === 'string') return fail(protocols);
  for (const [i, p] of protocols.entries()) if (p !== 'tcp' && p !== 'udp') return fail(`field 'protocols[${i}]' is ${JSON.stringify(p)}; expected 'tcp' or 'udp'`);

  const addressList = listOf(c, 'addresses');
  if (typeof addressList === 'string') return fail(addressList);
  const addresses: InterceptAddress[] = [];
  for (const [i, a] of addressList.entries()) {
    if (typeof a !== 'string') return fail(`field 'addresses[${i}]' must be a string`);
    const kind = addressKind(a);
    if (!['loopback', 'ip', 'cidr', 'hostname', 'wildcard'].includes(kind)) return fail(`field 'addresses[${i}]': ${kind}`);
    addresses.push({ text: a, kind: kind as AddressKind });
  }

  const rangeList = listOf(c, 'portRanges');
  if (typeof rangeList === 'string') return fail(rangeList);
  const portRanges: Array<{ low: number; high: number }> = [];
  for (const [i, r] of rangeList.entries()) {
    const range = (typeof r === 'object' && r !== null ? r : {}) as Record<string, unknown>;
    for (const end of ['low', 'high'] as const) if (!isPort(range[end])) return fail(`field 'portRanges[${i}].${end}' must be a port number from 0 to 65535`);
    const low = range.low as number;
    const high = range.high as number;
    if (low > high) return fail(`field 'portRanges[${i}]': low ${low} is above high ${high}`);
    portRanges.push({ low, high });
  }

  const value: InterceptConfig = { protocols: [...new Set(protocols as InterceptProtocol[])], addresses, portRanges };
  const dialOptions = c.dialOptions;
  if (dialOptions !== undefined) {
    if (typeof dialOptions !== 'object' || dialOptions === null) return fail("field 'dialOptions' must be an object");
    const seconds = (dialOptions as Record<string, unknown>).connectTimeoutSeconds;
    if (seconds !== undefined) {
      if (!Number.isInteger(seconds) || (seconds as number) < 0) return fail("field 'dialOptions.connectTimeoutSeconds' must be a whole number of seconds");
      // 0 means "the default" for the public tunnelers.
      if ((seconds as number) > 0) value.dialTimeoutMs = Math.min(seconds as number, 3600) * 1000;
    }
  }
  if (c.sourceIp !== undefined) {
    if (typeof c.sourceIp !== 'string' || c.sourceIp === '') return fail("field 'sourceIp' must be a non-empty string");
    value.sourceIp = c.sourceIp;
  }
  return { ok: true, value };
}
