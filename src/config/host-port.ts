/**
 * Syntax of the addresses the controller file holds: `host:port` (bind points, edge.api.address) and bare
 * host names (edge.totp.hostname). Pure; returns either the parsed value or the sentence saying what is wrong.
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { HostPort } from './types.js';

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

const LABEL = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;

/** True for a DNS name (`ctrl.example.com`, `localhost`); labels of letters, digits, `-` (and `_`, seen in practice). */
export function isDnsName(text: string): boolean {
  if (text.length === 0 || text.length > 253) return false;
  const labels = text.replace(/\.$/, '').split('.');
  if (!labels.every((label) => LABEL.test(label))) return false;
  // All-numeric names look like a mistyped IPv4 address, which is what they almost always are.
  return !labels.every((label) => /^\d+$/.test(label));
}

/** A port number as text: digits only, 1..65535. */
export function parsePort(text: string): Parsed<number> {
  if (!/^\d{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65535) {
    return { ok: false, problem: `port '${text}' must be a number from 1 to 65535` };
  }
  return { ok: true, value: Number(text) };
}

/**
 * Parses `host:port`, where host is a DNS name, an IPv4 address or a bracketed IPv6 address (`[::1]:1280`).
 *
 * @example parseHostPort('127.0.0.1:1280') // { ok: true, value: { host: '127.0.0.1', port: 1280, text: '127.0.0.1:1280' } }
 */
export function parseHostPort(text: string): Parsed<HostPort> {
  const match = /^(?:\[([^\]]*)\]|([^:[\]]*)):([^:]*)$/.exec(text);
  if (match === null) {
    // `tls:host:port` is the router's transport-address form; a bare IPv6 address is the other usual slip.
    const protocol = /^(tls|dtls|tcp|ws|wss|udp|https?):[^:]+:\d+$/.exec(text)?.[1];
    const hint = protocol
      ? `; drop the '${protocol}:' protocol prefix here`
      : text.indexOf(':') !== text.lastIndexOf(':') && !text.startsWith('[') // two colons or more
        ? '; write IPv6 hosts in brackets, e.g. [::1]:1280'
        : '';
    return { ok: false, problem: `'${text}' is not a host:port${hint}` };
  }
  const [, v6, name, portText] = match as unknown as [string, string | undefined, string | undefined, string];
  if (v6 !== undefined && !isIPv6(v6)) return { ok: false, problem: `'${text}': '[${v6}]' is not an IPv6 address` };
  const host = v6 ?? (name as string);
  if (host === '') return { ok: false, problem: `'${text}' has no host` };
  if (v6 === undefined && !isDnsName(host) && !isIPv4(host)) {
    return { ok: false, problem: `'${text}': '${host}' is not a DNS name or IPv4 address` };
  }
  const port = parsePort(portText);
  if (!port.ok) return { ok: false, problem: `'${text}': ${port.problem}` };
  return { ok: true, value: { host, port: port.value, text } };
}

/** Same host (case-insensitive for names) and port; how two addresses in the file are compared. */
export function sameHostPort(a: HostPort, b: HostPort): boolean {
  return hostPortKey(a) === hostPortKey(b);
}

/**
 * A text that is equal for two addresses exactly when `sameHostPort` says they are the same, for finding repeats
 * among many addresses with a map rather than by comparing each with every other.
 */
export function hostPortKey(address: HostPort): string {
  return `${normaliseHost(address.host)} ${address.port}`;
}

function normaliseHost(host: string): string {
  // IPv6 has many spellings of one address (`::1`, `0:0::1`); URL parsing gives the canonical one.
  if (isIPv6(host)) return new URL(`http://[${host}]/`).hostname;
  return host.toLowerCase().replace(/\.$/, '');
}
