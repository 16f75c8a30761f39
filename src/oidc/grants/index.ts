/**
 * The registry of token grants the token endpoint answers: one line per grant. A new grant is a new file in this
 * folder exporting an OidcGrant (grant.ts), its logic in services/oidc-provider/grants/, plus its line below.
 */
import { authorizationCodeGrant } from './authorization-code.js';
import type { OidcGrant } from './grant.js';
import { refreshTokenGrant } from './refresh-token.js';

const GRANTS: ReadonlyMap<string, OidcGrant> = new Map(
  [
    authorizationCodeGrant, // authorization_code (RFC 6749 §4.1.3, RFC 7636)
    refreshTokenGrant, //      refresh_token (RFC 6749 §6)
  ].map((grant) => [grant.grantType, grant]),
);

/** The grant types supported, in registry order (discovery's `grant_types_supported`). */
export const GRANT_TYPES: readonly string[] = [...GRANTS.keys()];

/** The grant answering `grantType`, if this provider supports it (a Map, so `constructor` is no grant). */
export function grantFor(grantType: string): OidcGrant | undefined {
  return GRANTS.get(grantType);
}

export type { OidcGrant } from './grant.js';
