/**
 * The UserInfo endpoint (OpenID Connect Core 1.0 §5.3): a Bearer access token (header, or form body per RFC 6750
 * §2.2) -> `{sub, name}`. A missing token gets a bare Bearer challenge, a refused one `invalid_token` (RFC 6750 §3.1).
 */
import { OAuthError } from '../../errors/oauth-error.js';
import { presentedCredentials } from '../../http/kit/credentials.js';
import { TokenRejected } from '../../services/oidc-provider/oidc-tokens.js';
import type { OidcEndpoint } from '../context.js';
import { MAX_TOKEN_PARAM, readParams } from '../params.js';

export const userinfo: OidcEndpoint = {
  method: ['GET', 'POST'],
  url: '/oidc/userinfo',
  async handler({ accessTokens }, request, reply) {
    const fromBody = request.method === 'POST' ? readParams(request.body, MAX_TOKEN_PARAM).access_token : undefined;
    const token = presentedCredentials(request).bearerTokens[0] ?? fromBody;
    if (!token) {
      reply.header('www-authenticate', 'Bearer realm="svc-oidc"');
      throw new OAuthError('invalid_request', 'an access token is required', { status: 401 });
    }
    try {
      const { identity } = await accessTokens.verify(token);
      reply.header('cache-control', 'no-store');
      return { sub: identity.id, name: identity.name };
    } catch (error) {
      if (error instanceof TokenRejected) throw new OAuthError('invalid_token', error.message);
      throw error;
    }
  },
};
