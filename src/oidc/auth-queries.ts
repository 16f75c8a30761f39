/**
 * The wire form of outstanding secondary factors: the spec's Authentication Query objects, pointing at the login
 * endpoint of the issuer the auth request belongs to, and the `totp-required` response header (spec: Headers).
 */
import type { FastifyReply } from 'fastify';
import type { OidcAuthRequest } from '../domain/oidc.js';
import type { OutstandingFactor } from '../policy/secondary-factors.js';

export interface AuthQuery {
  typeId: 'MFA' | 'EXT-JWT';
  /** The external JWT signer that must sign the secondary JWT (EXT-JWT only). */
  id?: string;
  format?: 'alphaNumeric';
  httpMethod: 'POST';
  httpUrl: string;
  minLength?: number;
  maxLength?: number;
  provider: 'svc';
}

/** Spec: Authentication Query; a TOTP code is six characters, posted to `<issuer>/login/totp`. */
export function authQueriesOf(issuer: string, outstanding: readonly OutstandingFactor[]): AuthQuery[] {
  return outstanding.map((factor) =>
    factor.kind === 'totp'
      ? { typeId: 'MFA', format: 'alphaNumeric', httpMethod: 'POST', httpUrl: `${issuer}/login/totp`, minLength: 6, maxLength: 6, provider: 'svc' }
      : { typeId: 'EXT-JWT', id: factor.signerId, httpMethod: 'POST', httpUrl: `${issuer}/login/ext-jwt`, provider: 'svc' },
  );
}

/** Answers a partially authenticated request: 200 with what it still needs, `totp-required: true` for TOTP. */
export function sendAuthQueries(reply: FastifyReply, request: Pick<OidcAuthRequest, 'id' | 'issuer' | 'outstanding'>) {
  if (request.outstanding.some((factor) => factor.kind === 'totp')) reply.header('totp-required', 'true');
  // The answer describes the state of a credential-bearing exchange; it must not be cached (RFC 6749 §5.1).
  return reply
    .code(200)
    .header('cache-control', 'no-store')
    .header('auth-request-id', request.id)
    .send({ authRequestId: request.id, authQueries: authQueriesOf(request.issuer, request.outstanding) });
}
