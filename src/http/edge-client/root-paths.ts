/**
 * The Edge Client API answers without its prefix too, as the reference controller does (issue 11, point 5): SDKs
 * in legacy mode post `/authenticate?method=cert` at the server root, and older ones use `/edge/v1/…`. On a listener
 * hosting `edge-client`, a path under no other root is served as `/edge/client/v1` + path, and `/edge/v1/…` as
 * `/edge/client/v1/…`. Roots that belong to something else (the other Edge API, OIDC, well-known documents, the
 * version document and the server root itself, and the roots later bindings serve) are left as they are.
 */
import { EDGE_CLIENT_PREFIX } from './routes.js';

/** Roots never mapped onto the client API: `/x` itself and everything under `/x/`. */
const OTHER_ROOTS = ['/edge', '/oidc', '/.well-known', '/version', '/metrics', '/health-checks', '/console'];
const LEGACY_PREFIX = '/edge/v1';

/** The URL (path and query) a request for `url` is served as. */
export function edgeClientUrl(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  if (path === LEGACY_PREFIX || path.startsWith(`${LEGACY_PREFIX}/`)) return `${EDGE_CLIENT_PREFIX}${url.slice(LEGACY_PREFIX.length)}`;
  if (path === '/' || !path.startsWith('/') || OTHER_ROOTS.some((root) => path === root || path.startsWith(`${root}/`))) return url;
  return `${EDGE_CLIENT_PREFIX}${url}`;
}
