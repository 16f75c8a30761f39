/**
 * Who may call an operation (route.ts, `access`), and what an admitted caller's answer says of its session: the same
 * for answers through Fastify (register-api.ts) and through the memory lane (memory-lane.ts).
 */
import { ApiError } from '../../errors/api-error.js';
import type { AuthContext } from '../../services/authentication/request-auth.js';
import { isoTimestampsNear, secondsUntil } from '../../shared/clock.js';
import type { Access } from './route.js';

/** Why `auth` may not call an operation open to `access`; undefined when it may. */
export function accessRefusal(access: Access, auth: AuthContext): ApiError | undefined {
  if (auth.partial && access !== 'partial') {
    return new ApiError('UNAUTHORIZED', { message: 'The session must answer its authentication queries before this operation' });
  }
  if (access === 'admin' && !auth.identity.isAdmin) return new ApiError('FORBIDDEN', { message: 'This operation needs an administrator' });
  return undefined;
}

/**
 * A session's expiry as ISO text. Expiries are mostly `now` plus the session timeout: a new millisecond each request,
 * the rest repeating (isoTimestampsNear).
 */
export const sessionExpiryText = isoTimestampsNear();

/** The session expiry headers of an authenticated answer (spec: Response headers), as of `now`. */
export function sessionExpiryHeaders(auth: AuthContext, now: Date) {
  return { 'expiration-seconds': String(secondsUntil(auth.expiresAt, now)), 'expires-at': sessionExpiryText(auth.expiresAt) };
}
