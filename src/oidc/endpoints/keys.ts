/** The key set that verifies every token this provider signs (RFC 7517 §5; OpenID Connect Discovery `jwks_uri`). */
import type { OidcEndpoint } from '../context.js';

export const keys: OidcEndpoint = {
  method: 'GET',
  url: '/oidc/keys',
  async handler({ provider }, _request, reply) {
    return reply.type('application/json').send(await provider.jwks());
  },
};
