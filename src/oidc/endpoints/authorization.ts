/**
 * The authorization endpoint (RFC 6749 §4.1.1, RFC 7636 §4.3), by GET or POST (OpenID Connect Core 1.0 §3.1.2.1;
 * SDKs post the parameters in the query with an empty body, others as a form body). A valid request is sealed into
 * its id and the user agent sent to the login page. Errors found before the redirect URI is trusted are shown (400 JSON); later ones are reported to
 * the client by redirect with `error`, `state` and `iss` (RFC 6749 §4.1.2.1, RFC 9207 §2).
 */
import { isOAuthError } from '../../errors/oauth-error.js';
import { presentedClientCertificate } from '../../http/kit/credentials.js';
import type { OidcEndpoint } from '../context.js';
import { MAX_AUTHORIZE_PARAM, queryAndBodyParams } from '../params.js';

export const authorization: OidcEndpoint = {
  method: ['GET', 'POST'],
  url: '/oidc/authorization',
  async handler({ provider, where }, request, reply) {
    const params = queryAndBodyParams(request.query, request.method === 'POST' ? request.body : undefined, MAX_AUTHORIZE_PARAM);
    try {
      const { authRequestId, login } = await provider.authorize(params, where, presentedClientCertificate(request) !== undefined);
      return reply.redirect(`/oidc/login/${login}?authRequestID=${encodeURIComponent(authRequestId)}`, 302);
    } catch (error) {
      if (!isOAuthError(error) || !error.redirect || !params.redirect_uri) throw error;
      const target = new URL(params.redirect_uri);
      target.searchParams.set('error', error.error);
      target.searchParams.set('error_description', error.message);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      target.searchParams.set('iss', where.issuer);
      return reply.redirect(target.toString(), 302);
    }
  },
};
