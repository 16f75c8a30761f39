/**
 * The `redirectURIs` patterns of the `edge-oidc` binding: `scheme://host[:port|:*][/path]`, where `*`
 * may stand only for the port (native clients listen on a random loopback port, RFC 8252 §7.3).
 * Pure; parsing only, the OIDC provider does the matching.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { isDnsName, parsePort } from './host-port.js';
import type { Parsed } from './host-port.js';
import type { RedirectUriPattern } from './types.js';

/** Used when the binding gives no `redirectURIs`: the app scheme and loopback callbacks on any port. */
export const DEFAULT_REDIRECT_URIS: readonly string[] = [
  'svc://auth/callback',
  'https://127.0.0.1:*/auth/callback',
  'http://127.0.0.1:*/auth/callback',
  'https://localhost:*/auth/callback',
  'http://localhost:*/auth/callback',
];

const SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(\[[^\]]*\]|[^/:[\]]*)(?::([^/]*))?(\/.*)?$/;

/**
 * Parses one redirect URI pattern.
 *
 * @example parseRedirectUri('http://127.0.0.1:*\/auth/callback') // port '*', path '/auth/callback'
 */
export function parseRedirectUri(text: string): Parsed<RedirectUriPattern> {
  const match = SHAPE.exec(text);
  if (match === null) return { ok: false, problem: `'${text}' is not of the form scheme://host[:port][/path]` };
  const [, scheme, hostText, portText, pathText] = match as unknown as [string, string, string, string | undefined, string | undefined];
  const path = pathText ?? '';
  if (hostText.includes('*') || path.includes('*')) {
    return { ok: false, problem: `'${text}': '*' is allowed only in the port position` };
  }
  // RFC 6749 §3.1.2: the redirection endpoint must not have a fragment; queries are left out to keep matching simple.
  if (/[?#\s]/.test(path)) return { ok: false, problem: `'${text}': the path must not hold a query, a fragment or spaces` };
  const host = hostText.startsWith('[') ? hostText.slice(1, -1) : hostText;
  const hostOk = hostText.startsWith('[') ? isIPv6(host) : isDnsName(host) || isIPv4(host);
  if (!hostOk) return { ok: false, problem: `'${text}': '${hostText}' is not a valid host` };
  let port: RedirectUriPattern['port'];
  if (portText === '*') port = '*';
  else if (portText !== undefined) {
    const parsed = parsePort(portText);
    if (!parsed.ok) return { ok: false, problem: `'${text}': ${parsed.problem}` };
    port = parsed.value;
  }
  return { ok: true, value: { text, scheme: scheme.toLowerCase(), host, port, path } };
}

/** DEFAULT_REDIRECT_URIS parsed once; they are constants, so a failure here is a programming error. */
export const DEFAULT_REDIRECT_PATTERNS: readonly RedirectUriPattern[] = DEFAULT_REDIRECT_URIS.map((text) => {
  const parsed = parseRedirectUri(text);
  if (!parsed.ok) throw new Error(`default redirect URI ${parsed.problem}`);
  return parsed.value;
});
