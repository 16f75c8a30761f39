/**
 * The authentication service behind a work limiter (services/authentication/work-limiter.ts): every primary credential check,
 * legacy or OIDC, waits for a turn, so a flood of logins answers 429 with Retry-After instead of queueing password
 * hashes without bound. Everything else passes straight through.
 */
import type { AuthenticationService } from './authentication.js';
import type { WorkLimiter } from './work-limiter.js';

export function limitAuthentication(service: AuthenticationService, limiter: WorkLimiter): AuthenticationService {
  return {
    ...service,
    authenticate: (request) => limiter.run(() => service.authenticate(request)),
    verifyPrimary: (request) => limiter.run(() => service.verifyPrimary(request)),
  };
}
