/**
 * Subject alternative names: sorting host names and addresses into DNS and IP entries (RFC 5280
 * section 4.2.1.6) so a TLS client that connects by either finds a match.
 */
import { isIP } from 'node:net';
import { PkiError } from './errors.js';

export interface SubjectAltNames {
  dns?: readonly string[];
  /** IPv4 or IPv6 addresses in text form (IPv6 without brackets). */
  ip?: readonly string[];
  /** URIs, e.g. a SPIFFE id for an enrolled identity. */
  uri?: readonly string[];
}

/** The names every controller server certificate carries, so local tools and tests can connect. */
export const DEFAULT_SERVER_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '::1'];

// A DNS name: dot-separated labels of letters, digits and hyphens, optionally a leading `*.` wildcard.
const DNS_NAME = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/**
 * Sorts hosts into DNS names and IP addresses, dropping duplicates (DNS names compared without case,
 * addresses compared in canonical form). Brackets around IPv6 addresses are accepted and removed.
 * Throws PkiError naming the first entry that is neither.
 */
export function subjectAltNamesForHosts(hosts: readonly string[]): { dns: string[]; ip: string[] } {
  const dns = new Map<string, string>();
  const ip = new Set<string>();
  for (const raw of hosts) {
    const host = raw.trim().replace(/^\[(.*)\]$/, '$1');
    const version = isIP(host);
    if (version === 4) ip.add(host);
    else if (version === 6) ip.add(canonicalIPv6(host));
    else if (DNS_NAME.test(host) && host.length <= 253) {
      if (!dns.has(host.toLowerCase())) dns.set(host.toLowerCase(), host);
    } else throw new PkiError(`"${raw}" is neither a DNS name nor an IP address, so it cannot be a certificate name`);
  }
  return { dns: [...dns.values()], ip: [...ip] };
}

/**
 * The compressed lowercase form of an IPv6 address (RFC 5952). The WHATWG URL parser produces it and
 * also rewrites an embedded IPv4 tail (`::ffff:1.2.3.4`), which the certificate encoder cannot read.
 */
function canonicalIPv6(address: string): string {
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    throw new PkiError(`"${address}" is not an IPv6 address a certificate can hold (zone ids are not allowed)`);
  }
}
