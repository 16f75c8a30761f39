/**
 * The TOTP steps of an OIDC login (spec: OIDC provider endpoints; TOTP enrollment inside the OIDC flow): answer
 * the TOTP factor (`/login/totp`, body `id` and `code`), and enroll TOTP during the login (`/login/totp/enroll`,
 * its `/verify`, and DELETE to abandon). Bodies are JSON or form; the request id is `authRequestId` or `id`.
 * A wrong code is 400 `mfa_invalid_token`, saying the code was invalid, and leaves the request as it was.
 */
import type { MfaStatus } from '../../services/mfa/mfa.js';
import type { OidcFactorService } from '../../services/oidc-provider/oidc-factors.js';
import type { LoginOutcome } from '../../services/oidc-provider/oidc-provider.js';
import type { OidcEndpoint } from '../context.js';
import { answerLogin, authRequestIdOf } from './login.js';
import { isApiError } from '../../errors/api-error.js';
import { totpForm, wantsHtml } from '../pages.js';

function enrollmentView(status: MfaStatus) {
  return {
    id: status.id,
    isVerified: status.isVerified,
    provisioningUrl: status.provisioningUrl,
    recoveryCodes: status.recoveryCodes,
    createdAt: status.createdAt.toISOString(),
    updatedAt: status.updatedAt.toISOString(),
  };
}

/** A POST answering with a code: the redirect with the authorization code, or what is still outstanding. */
function codeEndpoint(url: string, step: (factors: OidcFactorService) => (id: string | undefined, code: string | undefined) => Promise<LoginOutcome>): OidcEndpoint {
  return {
    method: 'POST',
    url,
    async handler({ factors }, request, reply) {
      const { body, id } = authRequestIdOf(request);
      try {
        return answerLogin(reply, await step(factors).call(factors, id, body.code), request);
      } catch (error) {
        // A browser posting the TOTP form gets it back with the reason; API clients get the JSON error.
        if (wantsHtml(request) && id && isApiError(error) && error.status < 500) {
          if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
          return reply.code(error.status).type('text/html; charset=utf-8').send(totpForm(id, error.message));
        }
        throw error;
      }
    },
  };
}

export const totpEndpoints: OidcEndpoint[] = [
  codeEndpoint('/oidc/login/totp', (factors) => factors.answerTotp),
  {
    method: 'POST',
    url: '/oidc/login/totp/enroll',
    async handler({ factors }, request, reply) {
      const { id } = authRequestIdOf(request);
      const status = await factors.startTotpEnrollment(id);
      // The secret is in the answer: it must not be cached anywhere on the way.
      return reply.code(201).header('cache-control', 'no-store').send(enrollmentView(status));
    },
  },
  codeEndpoint('/oidc/login/totp/enroll/verify', (factors) => factors.verifyTotpEnrollment),
  {
    method: 'DELETE',
    url: '/oidc/login/totp/enroll',
    async handler({ factors }, request, reply) {
      const { id } = authRequestIdOf(request);
      await factors.cancelTotpEnrollment(id);
      return reply.code(200).send({});
    },
  },
];
