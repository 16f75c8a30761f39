/** `GET /oidc/assets/login-HASH.css`: the login pages' stylesheet, named by its content and cached for a year. */
import type { OidcEndpoint } from '../context.js';
import { sendOAuthError } from '../errors.js';
import { LOGIN_CSS, LOGIN_CSS_PATH } from '../pages/style.js';

export const loginStylesheet: OidcEndpoint = {
  method: 'GET',
  url: LOGIN_CSS_PATH,
  async handler(_context, request, reply) {
    // The stylesheet is named by its content and takes nothing else: a query string is a client's mistake.
    if (request.url.includes('?')) return sendOAuthError(reply, 400, 'invalid_request', 'the login stylesheet takes no query parameters');
    return reply.header('cache-control', 'public, max-age=31536000, immutable').header('x-content-type-options', 'nosniff').type('text/css; charset=utf-8').send(LOGIN_CSS);
  },
};
