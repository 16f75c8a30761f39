/** RFC 6749 §6: refresh_token and client_id; the refresh token is rotated on every use. */
import type { OidcGrant } from './grant.js';

export const refreshTokenGrant: OidcGrant = {
  grantType: 'refresh_token',
  parameters: ['refresh_token', 'client_id'],
  handler: ({ provider }, params) => provider.refreshToken(params),
};
