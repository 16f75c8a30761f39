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
import { enrollPage, pageStrings, sendPage, totpPage, wantsHtml } from '../pages/render.js';

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
    async handler({ factors, provider }, request, reply) {
      const { body, id } = authRequestIdOf(request);
      // A page's form may post on to the client's redirect URI once the code is issued (the CSP's form-action).
      const redirectUri = id ? (await provider.pendingAuthRequest(id).catch(() => undefined))?.redirectUri : undefined;
      try {
        // In the browser, the recovery codes count only once the user confirmed they saved them (the checkbox).
        if (url === '/oidc/login/totp/enroll/verify' && wantsHtml(request) && id && body.saved !== 'yes') {
          const pending = await factors.pendingTotpEnrollment(id);
          const s = pageStrings(request);
          const html = await enrollPage(s, id, { provisioningUrl: pending.provisioningUrl ?? '', recoveryCodes: pending.recoveryCodes ?? [] }, { message: s.savedRequired, field: 'saved' });
          return sendPage(reply, 400, html, redirectUri);
        }
        return answerLogin(reply, await step(factors).call(factors, id, body.code), request);
      } catch (error) {
        // A browser posting the TOTP form gets it back with the reason; API clients get the JSON error.
        if (wantsHtml(request) && id && isApiError(error) && error.status < 500) {
          if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
          const s = pageStrings(request);
          const message = error.retryAfterSeconds !== undefined ? s.tooMany : s.wrongCode;
          if (url === '/oidc/login/totp/enroll/verify') {
            const pending = await factors.pendingTotpEnrollment(id).catch(() => undefined);
            if (pending?.provisioningUrl && pending.recoveryCodes) {
              const html = await enrollPage(s, id, { provisioningUrl: pending.provisioningUrl, recoveryCodes: pending.recoveryCodes }, { message, field: 'code' });
              return sendPage(reply, error.status, html, redirectUri);
            }
          }
          return sendPage(reply, error.status, totpPage(s, id, { message, field: 'code' }), redirectUri);
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
    async handler({ factors, provider }, request, reply) {
      const { id } = authRequestIdOf(request);
      // A browser that already started shows the same enrollment again (the secret it may have scanned stays valid).
      const existing = wantsHtml(request) && id ? await factors.pendingTotpEnrollment(id).catch(() => undefined) : undefined;
      const status = existing && !existing.isVerified && existing.provisioningUrl ? existing : await factors.startTotpEnrollment(id);
      if (wantsHtml(request) && id) {
        const redirectUri = (await provider.pendingAuthRequest(id).catch(() => undefined))?.redirectUri;
        return sendPage(reply, 200, await enrollPage(pageStrings(request), id, { provisioningUrl: status.provisioningUrl ?? '', recoveryCodes: status.recoveryCodes ?? [] }), redirectUri);
      }
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
