/**
 * Where the OIDC provider may send a browser back to for the console: `https://HOST:PORT/console/callback` on the
 * listener's own addresses, added to the binding's `redirectURIs` when one listener serves both the Management API and
 * OIDC (decision 0080). Only this listener's own addresses: a code for the console never leaves the controller.
 */
import { isIPv6 } from 'node:net';
import type { BindPoint, RedirectUriPattern } from '../../config/types.js';
import { parseRedirectUri } from '../../config/redirect-uri.js';

export const CONSOLE_CALLBACK_PATH = '/console/callback';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1'];
const UNSPECIFIED = ['0.0.0.0', '::'];

export function consoleRedirectUris(bindPoint: BindPoint): RedirectUriPattern[] {
  const places: [string, number][] = [[bindPoint.address.host, bindPoint.address.port]];
  if (!UNSPECIFIED.includes(bindPoint.interface.host)) places.push([bindPoint.interface.host, bindPoint.interface.port]);
  // A browser on the controller's machine may use either loopback name for the same listener.
  for (const [host, port] of [...places]) if (LOOPBACK_NAMES.includes(host)) for (const name of LOOPBACK_NAMES) places.push([name, port]);
  const texts = new Set(places.map(([host, port]) => `https://${isIPv6(host) ? `[${host}]` : host}:${port}${CONSOLE_CALLBACK_PATH}`));
  const patterns: RedirectUriPattern[] = [];
  for (const text of texts) {
    const parsed = parseRedirectUri(text);
    if (parsed.ok) patterns.push(parsed.value);
  }
  return patterns;
}
