/**
 * The token endpoint (RFC 6749 §3.2): form-encoded, client `svc` without a secret (RFC 6749 §2.1 public client).
 * The grants are found in the registry grants/index.ts; the answer is never cached (RFC 6749 §5.1).
 */
import { OAuthError } from '../../errors/oauth-error.js';
import type { OidcEndpoint } from '../context.js';
import { grantFor } from '../grants/index.js';
import { MAX_TOKEN_PARAM, readParams } from '../params.js';

export const token: OidcEndpoint = {
  method: 'POST',
  url: '/oidc/token',
  async handler(context, request, reply) {
    if (!String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      throw new OAuthError('invalid_request', 'the token request must be application/x-www-form-urlencoded (RFC 6749 §3.2)');
    }
    const params = readParams(request.body, MAX_TOKEN_PARAM);
    const grant = params.grant_type ? grantFor(params.grant_type) : undefined;
    if (!params.grant_type) throw new OAuthError('invalid_request', 'grant_type is required');
    if (!grant) throw new OAuthError('unsupported_grant_type', `grant_type '${params.grant_type}' is not supported`);
    for (const name of grant.parameters) {
      if (!params[name]) throw new OAuthError('invalid_request', `${name} is required for grant_type ${grant.grantType}`);
    }
    const response = await grant.handler(context, params);
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    return response;
  },
};
