/**
 * The controller-hosted callback (`GET /oidc/authorize/callback?id=<authRequestId>`), as the reference provider has
 * it: a login whose factors are all answered redirects here, and this redirects to the client's `redirect_uri` with
 * the one-time code, `state` and `iss` (RFC 6749 §4.1.2, RFC 9207). SDKs follow the first redirect on the
 * controller and read the code from the second; browsers and certified clients follow both. Its id is the code a
 * primary login minted (followed again, it gives the same code, which redeems once: decision 0046), or the id of a
 * request that answered its secondary factors, which gets its code here once.
 */
import type { OidcEndpoint } from '../context.js';
import { MAX_TOKEN_PARAM, readParams } from '../params.js';

export const authorizeCallback: OidcEndpoint = {
  method: 'GET',
  url: '/oidc/authorize/callback',
  async handler({ provider }, request, reply) {
    const query = readParams(request.query, MAX_TOKEN_PARAM);
    const location = await provider.callback(query.id ?? query.authRequestID);
    return reply.header('cache-control', 'no-store').redirect(location, 302);
  },
};
