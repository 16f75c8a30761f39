/**
 * Syntax of the values a router file holds: transport addresses `<protocol>:<host>:<port>`, advertise
 * addresses `<host>:<port>`, interface names, CIDRs, `service:port` pairs and SAN values. Pure; each parser
 * returns the sentence saying what is wrong, or undefined when the value is fine.
 */
import { isIP, isIPv4, isIPv6 } from 'node:net';
import { isDnsName, parseHostPort, parsePort } from '../../config/host-port.js';
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
