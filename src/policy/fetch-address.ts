/**
 * Which IP addresses the controller may fetch from on an administrator's say-so (the JWKS endpoints of external JWT
 * signers), so that a signer cannot turn the controller into a proxy to what only it can reach. Link-local addresses
 * (169.254.0.0/16, fe80::/10: cloud metadata services, host-local agents) are always refused; loopback, private and
 * other non-public ranges only when the operator asks (`edge.externalJwt.refusePrivateAddresses`). IPv6 forms that
 * embed an IPv4 address (mapped, compatible, NAT64, 6to4) are judged by that address. Pure: no DNS, no I/O.
 */
import { isIP } from 'node:net';

/** Why an address is not public; `link-local` and `metadata` are refused whatever the configuration says. */
export type AddressClass = 'public' | 'link-local' | 'metadata' | 'loopback' | 'private' | 'unspecified' | 'reserved';

interface Range {
  /** Address bytes of the prefix (4 or 16). */
  bytes: number[];
  bits: number;
  kind: Exclude<AddressClass, 'public'>;
}

const v4 = (cidr: string, kind: Range['kind']): Range => {
  const [address, bits] = cidr.split('/') as [string, string];
  return { bytes: address.split('.').map(Number), bits: Number(bits), kind };
};
const v6 = (cidr: string, kind: Range['kind']): Range => {
  const [address, bits] = cidr.split('/') as [string, string];
  return { bytes: [...(ipv6Bytes(address) as Uint8Array)], bits: Number(bits), kind };
};

const IPV4_RANGES: Range[] = [
  v4('169.254.0.0/16', 'link-local'),
  v4('100.100.100.200/32', 'metadata'), // a cloud instance metadata service inside carrier-grade NAT space
  v4('127.0.0.0/8', 'loopback'),
  v4('0.0.0.0/8', 'unspecified'),
  v4('10.0.0.0/8', 'private'),
  v4('172.16.0.0/12', 'private'),
  v4('192.168.0.0/16', 'private'),
  v4('100.64.0.0/10', 'private'), // carrier-grade NAT (RFC 6598)
  v4('192.0.0.0/24', 'reserved'), // IETF protocol assignments
  v4('192.0.2.0/24', 'reserved'), // documentation (RFC 5737)
  v4('198.51.100.0/24', 'reserved'),
  v4('203.0.113.0/24', 'reserved'),
  v4('198.18.0.0/15', 'reserved'), // benchmarking
  v4('224.0.0.0/4', 'reserved'), // multicast
  v4('240.0.0.0/4', 'reserved'), // future use and broadcast
];

const IPV6_RANGES: Range[] = [
  v6('fe80::/10', 'link-local'),
  v6('fd00:ec2::254/128', 'metadata'), // the IPv6 address of a cloud instance metadata service
  v6('::1/128', 'loopback'),
  v6('::/128', 'unspecified'),
  v6('fc00::/7', 'private'), // unique local
  v6('fec0::/10', 'private'), // site-local (deprecated)
  v6('ff00::/8', 'reserved'), // multicast
  v6('2001:db8::/32', 'reserved'), // documentation
  v6('2001::/32', 'reserved'), // Teredo: the IPv4 address inside is obfuscated
  v6('100::/64', 'reserved'), // discard
];

/** Where an IPv6 address carries an IPv4 address in its last four bytes (or bytes 2..5 for 6to4). */
function embeddedIpv4(bytes: Uint8Array): number[] | undefined {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return [...bytes.slice(12)]; // ::ffff:a.b.c.d
  if (zeros(0, 12) && !zeros(12, 16) && !(zeros(12, 15) && bytes[15] === 1)) return [...bytes.slice(12)]; // ::a.b.c.d
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) return [...bytes.slice(12)]; // NAT64
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return [...bytes.slice(2, 6)]; // 6to4
  return undefined;
}

function ipv4Bytes(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
}

/** The 16 bytes of an IPv6 address (a `%zone` suffix ignored), or undefined when it is not one. */
function ipv6Bytes(text: string): Uint8Array | undefined {
  const address = text.split('%')[0] as string;
  if (isIP(address) !== 6) return undefined;
  let head = address;
  const tail: number[] = [];
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) {
    tail.push(...(ipv4Bytes(dotted[1] as string) as number[]));
    head = `${address.slice(0, dotted.index)}:0:0`;
  }
  const [left, right] = head.includes('::') ? (head.split('::') as [string, string]) : [head, undefined];
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const l = groups(left);
  const r = right === undefined ? [] : groups(right);
  const all = right === undefined ? l : [...l, ...new Array<number>(8 - l.length - r.length).fill(0), ...r];
  const bytes = new Uint8Array(16);
  all.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  if (tail.length === 4) bytes.set(tail, 12);
  return bytes;
}

function matches(bytes: ArrayLike<number>, range: Range): boolean {
  for (let bit = 0; bit < range.bits; bit++) {
    const mask = 0x80 >> bit % 8;
    const index = Math.floor(bit / 8);
    if (((bytes[index] as number) & mask) !== ((range.bytes[index] as number) & mask)) return false;
  }
  return true;
}

function classifyIpv4(bytes: number[]): AddressClass {
  return IPV4_RANGES.find((range) => matches(bytes, range))?.kind ?? 'public';
}

/**
 * What kind of address `ip` is (an IPv4 or IPv6 literal without brackets); undefined when it is not an address.
 *
 * @example classifyAddress('169.254.169.254') // 'link-local'; classifyAddress('::ffff:10.0.0.1') // 'private'
 */
export function classifyAddress(ip: string): AddressClass | undefined {
  const four = ipv4Bytes(ip);
  if (four) return classifyIpv4(four);
  const six = ipv6Bytes(ip);
  if (!six) return undefined;
  const embedded = embeddedIpv4(six);
  if (embedded) {
    const inner = classifyIpv4(embedded);
    if (inner !== 'public') return inner;
  }
  return IPV6_RANGES.find((range) => matches(six, range))?.kind ?? 'public';
}

/**
 * Why the controller must not connect to `ip`, in words, or undefined when it may. Link-local and metadata
 * addresses are always refused; the other non-public kinds when `refusePrivate` is set.
 */
export function addressRefusal(ip: string, refusePrivate: boolean): string | undefined {
  const kind = classifyAddress(ip);
  if (kind === undefined) return `'${ip}' is not an IP address`;
  if (kind === 'link-local' || kind === 'metadata') return `${ip} is a ${kind} address (cloud metadata and host-local services are never fetched)`;
  if (kind !== 'public' && refusePrivate) return `${ip} is a ${kind} address, refused by edge.externalJwt.refusePrivateAddresses`;
  return undefined;
}
