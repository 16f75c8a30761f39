/**
 * Syntax of the values a router file holds: transport addresses `<protocol>:<host>:<port>`, advertise
 * addresses `<host>:<port>` (for link listeners also `tls:<host>:<port>`), interface names, CIDRs,
 * `service:port` pairs and SAN values. Pure; each parser returns the sentence saying what is wrong, or
 * undefined when the value is fine.
 */
import { isIP, isIPv4, isIPv6 } from 'node:net';
import { isDnsName, parseHostPort, parsePort } from '../../config/host-port.js';
import type { Parsed } from '../../config/host-port.js';
import { closestMatch } from '../../shared/text-distance.js';

/** Protocols the router binary registers (reference §11). */
export const PROTOCOLS = ['tls', 'dtls', 'tcp', 'ws', 'wss', 'udp'] as const;

/** `tls:0.0.0.0:3022`, `udp:[::1]:53`. */
export function addressProblem(text: string): string | undefined {
  const colon = text.indexOf(':');
  const protocol = colon < 0 ? '' : text.slice(0, colon);
  if (colon < 0 || !/^[a-z0-9_]+$/i.test(protocol)) {
    return `'${text}' is not an address; expected <protocol>:<host>:<port>, e.g. tls:router.example.com:3022`;
  }
  if (!(PROTOCOLS as readonly string[]).includes(protocol)) {
    const guess = closestMatch(protocol, PROTOCOLS);
    const hint = guess === undefined ? '' : ` (did you mean '${guess}'?)`;
    return `'${text}': unknown protocol '${protocol}'${hint}; expected one of ${PROTOCOLS.join(', ')}`;
  }
  const rest = text.slice(colon + 1);
  const hostPort = parseHostPort(rest);
  if (hostPort.ok) return undefined;
  return `'${text}': ${hostPort.problem.replace(`'${rest}' is not a host:port`, `'${rest}' is not <host>:<port>`)}`;
}

/** `router.example.com:3022`: no protocol, as clients and other routers are told to connect. */
export function advertiseProblem(text: string): string | undefined {
  const parsed = parseHostPort(text);
  if (parsed.ok) return undefined;
  if (addressProblem(text) === undefined) return `'${text}' must be <host>:<port> without a protocol`;
  return parsed.problem.replace('is not a host:port', 'is not <host>:<port>');
}

/**
 * The one protocol a link listener's `advertise` may name: router links are TLS, and the reference router's own
 * router files write `tls:<host>:<port>` there.
 */
export const LINK_PROTOCOL = 'tls';

const LINK_ADVERTISE_FORMS = `a link listener advertises ${LINK_PROTOCOL}:<host>:<port> or <host>:<port>`;

/**
 * A link listener's `advertise`: `<host>:<port>` as the spec writes it, or `tls:<host>:<port>` as existing router
 * files write it; both name the same address, returned as `<host>:<port>`. A leading protocol name is always
 * read as a protocol (`tls:4022` lacks a host rather than naming one `tls`), and any protocol but TLS is refused.
 *
 * @example parseLinkAdvertise('tls:router.example.com:4022') // { ok: true, value: 'router.example.com:4022' }
 */
export function parseLinkAdvertise(text: string): Parsed<string> {
  if (/^[a-z][a-z0-9_]*:\/\//i.test(text)) {
    // The URL form (`tls://host:port`) that tunnel resolvers are often written in.
    const written = text.replace('://', ':');
    const hint = parseLinkAdvertise(written).ok ? ` (did you mean '${written}'?)` : '';
    return { ok: false, problem: `'${text}': a URL is not accepted here; ${LINK_ADVERTISE_FORMS}${hint}` };
  }
  const colon = text.indexOf(':');
  const protocol = colon < 0 ? '' : text.slice(0, colon);
  const rest = text.slice(colon + 1);
  if (protocol === LINK_PROTOCOL) {
    const problem = addressProblem(text);
    return problem === undefined ? { ok: true, value: rest } : { ok: false, problem };
  }
  if ((PROTOCOLS as readonly string[]).includes(protocol)) {
    const hint = parseHostPort(rest).ok ? ` (did you mean '${LINK_PROTOCOL}:${rest}'?)` : '';
    return { ok: false, problem: `'${text}': protocol '${protocol}' is not accepted here; ${LINK_ADVERTISE_FORMS}${hint}` };
  }
  const hostPort = parseHostPort(text);
  if (hostPort.ok) return { ok: true, value: text };
  // `tsl:host:port`, `quic:host:port`: a protocol-like word before a whole host:port is a protocol, misspelt or
  // foreign. Anything else (a bare IPv6 address, a missing port) keeps the host:port parser's own words.
  if (/^[a-z][a-z0-9_]*$/i.test(protocol) && parseHostPort(rest).ok) {
    const guess = closestMatch(protocol, [LINK_PROTOCOL]);
    const hint = guess === undefined ? '' : ` (did you mean '${guess}'?)`;
    return { ok: false, problem: `'${text}': unknown protocol '${protocol}'${hint}; ${LINK_ADVERTISE_FORMS}` };
  }
  return { ok: false, problem: hostPort.problem.replace('is not a host:port', 'is not <host>:<port>') };
}

/** parseLinkAdvertise's problem, for checkValue. */
export function linkAdvertiseProblem(text: string): string | undefined {
  const parsed = parseLinkAdvertise(text);
  return parsed.ok ? undefined : parsed.problem;
}

const INTERFACE = /^[A-Za-z][A-Za-z0-9_.:-]{0,14}$/;

/** A local bind target: an interface name (`eth0`) or a local IP address. */
export function interfaceProblem(text: string): string | undefined {
  if (isIP(text) !== 0 || INTERFACE.test(text)) return undefined;
  return `'${text}' is not an interface name or IP address`;
}

/** `100.64.0.0/10`, `fd00::/8`. */
export function cidrProblem(text: string): string | undefined {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(text);
  const why = `'${text}' is not a CIDR (expected <ip>/<prefix length>, e.g. 100.64.0.0/10)`;
  if (match === null) return why;
  const [, ip, bits] = match as unknown as [string, string, string];
  const max = isIPv4(ip) ? 32 : isIPv6(ip) ? 128 : undefined;
  if (max === undefined) return `'${text}': '${ip}' is not an IP address`;
  if (Number(bits) > max) return `'${text}': prefix length ${bits} is above ${max}`;
  return undefined;
}

/** Also the `udp://127.0.0.1:53` URL form tunnels commonly use. */
export function resolverProblem(text: string): string | undefined {
  return addressProblem(text.replace(/^([a-z]+):\/\//i, '$1:'));
}

/** `my-service:8080` for the tunnel's proxy mode. */
export function servicePortProblem(text: string): string | undefined {
  const colon = text.lastIndexOf(':');
  if (colon <= 0) return `'${text}' is not <service name>:<port>`;
  const port = parsePort(text.slice(colon + 1));
  return port.ok ? undefined : `'${text}': ${port.problem}`;
}

export type SanKind = 'dns' | 'ip' | 'uri' | 'email';

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** One SAN value of the given kind; DNS names may start with one `*.` wildcard label. */
export function sanProblem(kind: SanKind, text: string): string | undefined {
  switch (kind) {
    case 'dns':
      return isDnsName(text.replace(/^\*\./, '')) ? undefined : `'${text}' is not a DNS name`;
    case 'ip':
      return isIP(text) !== 0 ? undefined : `'${text}' is not an IP address`;
    case 'uri':
      return /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(text) && URL.canParse(text) ? undefined : `'${text}' is not a URI with a scheme`;
    case 'email': {
      const domain = text.slice(text.lastIndexOf('@') + 1);
      return EMAIL.test(text) && isDnsName(domain) ? undefined : `'${text}' is not an email address`;
    }
  }
}
