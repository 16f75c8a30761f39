/**
 * RP-Initiated Logout (OpenID Connect RP-Initiated Logout 1.0 §2): `id_token_hint` names the session (its `sid`,
 * or an access token's `z_asid`), which is revoked: its access tokens stop on every API and its refresh family is
 * revoked. `post_logout_redirect_uri` must be on a registered redirect host and port (any path).
 */
import { OAuthError } from '../../errors/oauth-error.js';
import { OIDC_CLIENT_ID } from '../../domain/oidc.js';
import { postLogoutUriAllowed } from '../../policy/redirect-uri-match.js';
import type { OidcEndpoint } from '../context.js';
import { MAX_TOKEN_PARAM, readParams } from '../params.js';

export const endSession: OidcEndpoint = {
  method: ['GET', 'POST'],
  url: '/oidc/end_session',
  async handler({ provider, where }, request, reply) {
    const params = readParams(request.method === 'POST' ? request.body : request.query, MAX_TOKEN_PARAM);
    if (params.client_id !== undefined && params.client_id !== OIDC_CLIENT_ID) throw new OAuthError('invalid_client', 'unknown client_id');
    const target = params.post_logout_redirect_uri;
    if (target !== undefined && !postLogoutUriAllowed(target, where.redirectUris)) {
      throw new OAuthError('invalid_request', 'post_logout_redirect_uri is not registered for this client');
    }
    await provider.endSession(params.id_token_hint);
    if (target === undefined) return reply.type('text/plain; charset=utf-8').send('signed out successfully');
    const url = new URL(target);
    if (params.state !== undefined) url.searchParams.set('state', params.state);
    return reply.redirect(url.toString(), 302);
  },
};
