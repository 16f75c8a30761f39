/**
 * The issuer of a bind point: `https://<address>/oidc` (spec: OIDC tokens, "The `iss` claim reflects the bind point
 * address that the client connected to").
 */
import type { BindPoint } from '../config/types.js';

export const OIDC_PREFIX = '/oidc';

export function oidcIssuer(bindPoint: BindPoint): string {
  const host = bindPoint.address.host.includes(':') ? `[${bindPoint.address.host}]` : bindPoint.address.host;
  return `https://${host}:${bindPoint.address.port}${OIDC_PREFIX}`;
}
