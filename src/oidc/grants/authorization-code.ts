/** RFC 6749 §4.1.3 with PKCE (RFC 7636 §4.5): code, redirect_uri, client_id and code_verifier. */
import type { OidcGrant } from './grant.js';

export const authorizationCodeGrant: OidcGrant = {
  grantType: 'authorization_code',
  parameters: ['code', 'redirect_uri', 'client_id', 'code_verifier'],
  handler: ({ provider }, params) => provider.authorizationCode(params),
};
