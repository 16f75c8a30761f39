/**
 * Token revocation (RFC 7009 §2.1): a refresh or access token revokes its whole session. The answer is 200 whether
 * or not the token was known (RFC 7009 §2.2), so it tells nothing about token validity.
 */
import { OAuthError } from '../../errors/oauth-error.js';
import { OIDC_CLIENT_ID } from '../../domain/oidc.js';
import type { OidcEndpoint } from '../context.js';
import { MAX_TOKEN_PARAM, readParams } from '../params.js';

export const revoke: OidcEndpoint = {
  method: 'POST',
  url: '/oidc/revoke',
  async handler({ provider }, request, reply) {
    const params = readParams(request.body, MAX_TOKEN_PARAM);
    if (params.client_id !== undefined && params.client_id !== OIDC_CLIENT_ID) throw new OAuthError('invalid_client', 'unknown client_id');
    await provider.revoke(params.token);
    return reply.code(200).send();
  },
};
