/**
 * Whether a redirect URI a client presents matches one of the `edge-oidc` binding's `redirectURIs` patterns
 * (RFC 6749 §3.1.2.2 asks for registration; RFC 8252 §7.3 lets loopback redirects use any port, hence `*`).
 * Comparison is exact on scheme, host and path; a URI with a fragment never matches (RFC 6749 §3.1.2).
 * Pure.
 */
import type { RedirectUriPattern } from '../config/types.js';

interface UriParts {
  scheme: string;
  host: string;
  port: number | undefined;
  path: string;
}

// The host is read as in an atomic group (a lookahead captures it, the backreference consumes it) so that a host
// followed by a character no part may start with fails at once instead of being given back one character at a time:
// only the longest host can be followed by a port, a path, a query or the end. Groups: scheme, host, port, path, query.
const SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(?=(\[[^\]]*\]|[^/:?#[\]]*))\2(?::(\d{1,5}))?(\/[^?#]*)?(\?[^#]*)?$/;

function parts(uri: string): UriParts | undefined {
  // A fragment never matches; refused before the pattern, which would backtrack over the whole host to find that out.
  if (uri.includes('#')) return undefined;
  const match = SHAPE.exec(uri);
  if (!match) return undefined;
  const [, scheme, hostText, portText, path, query] = match;
  // RFC 6749 §3.1.2: a query is allowed in a registered URI; patterns here have none, so none may be added.
  if (query !== undefined) return undefined;
  const host = (hostText as string).startsWith('[') ? (hostText as string).slice(1, -1) : (hostText as string);
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  return { scheme: (scheme as string).toLowerCase(), host: host.toLowerCase(), port, path: path ?? '' };
}

function hostPortMatch(uri: UriParts, pattern: RedirectUriPattern): boolean {
  if (uri.scheme !== pattern.scheme || uri.host !== pattern.host.toLowerCase()) return false;
  if (pattern.port === '*') return true;
  return uri.port === pattern.port;
}

/** True when `uri` is one of the registered redirect URIs (with `*` standing for any port). */
export function redirectUriAllowed(uri: string, patterns: readonly RedirectUriPattern[]): boolean {
  const p = parts(uri);
  return p !== undefined && patterns.some((pattern) => hostPortMatch(p, pattern) && p.path === pattern.path);
}

/**
 * True when `uri` may be a post-logout redirect (OpenID Connect RP-Initiated Logout 1.0 §2): same scheme, host and
 * port rules as the redirect URIs, any path, since the binding registers no separate post-logout list.
 */
export function postLogoutUriAllowed(uri: string, patterns: readonly RedirectUriPattern[]): boolean {
  const p = parts(uri);
  return p !== undefined && patterns.some((pattern) => hostPortMatch(p, pattern));
}
