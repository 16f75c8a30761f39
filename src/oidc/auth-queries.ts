/**
 * The wire form of outstanding secondary factors: the spec's Authentication Query objects, pointing at the login
 * endpoint of the issuer the auth request belongs to, and the `totp-required` response header (spec: Headers).
 */
import type { FastifyReply } from 'fastify';
import type { OidcAuthRequest } from '../domain/oidc.js';
import type { OutstandingFactor } from '../policy/secondary-factors.js';
import { authQueriesOf, totpRequired } from '../domain/auth-query.js';

/** The auth queries of an OIDC login: answered at the login endpoints of the request's issuer. */
export function oidcAuthQueries(issuer: string, outstanding: readonly OutstandingFactor[]) {
  return authQueriesOf(outstanding, { totp: `${issuer}/login/totp`, extJwt: `${issuer}/login/ext-jwt` });
}

/** Answers a partially authenticated request: 200 with what it still needs, `totp-required: true` for TOTP. */
export function sendAuthQueries(reply: FastifyReply, request: Pick<OidcAuthRequest, 'handle' | 'issuer' | 'outstanding'>) {
  if (totpRequired(request.outstanding)) reply.header('totp-required', 'true');
  // The answer describes the state of a credential-bearing exchange; it must not be cached (RFC 6749 §5.1).
  return reply
    .code(200)
    .header('cache-control', 'no-store')
    .header('auth-request-id', request.handle)
    .send({ authRequestId: request.handle, authQueries: oidcAuthQueries(request.issuer, request.outstanding) });
}
