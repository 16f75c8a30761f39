/**
 * Enrollment method `ottca` (reference facts §9; authorization-and-routers facts C): an administrator created the
 * identity's enrollment naming a third-party CA; the client connects with a certificate that CA issued (leaf and
 * intermediates in the TLS handshake) and presents the one-time token, no CSR. The certificate becomes the identity's
 * certificate authenticator, marked as not issued by this controller (so it is never extended here).
 *
 * Checks in order: the token (enroll.ts); the CA exists and allows ottca (400 ENROLLMENT_CA_NOT_VALID; as in the
 * reference, an unverified CA may enroll by token: the administrator named it); the chain leads to that CA (400
 * CERT_FAILED_VALIDATION); no authenticator holds the certificate (409 CERT_IN_USE).
 */
import { ApiError } from '../../../errors/api-error.js';
import { newEntityId } from '../../../shared/random.js';
import type { EnrollMethod } from './enroll-method.js';
import { acceptedChain, presentedChain, type PresentedChainInput } from './presented-certificate.js';
import { X509Certificate } from 'node:crypto';

export interface CaEnrollResult {
  identityId: string;
}

function caNotValid(reason: string, caId: string | null): ApiError {
  return new ApiError('ENROLLMENT_CA_NOT_VALID', { cause: { field: 'caId', reason, value: caId } });
}

export const ottcaEnrollment: EnrollMethod<PresentedChainInput, CaEnrollResult> = {
  name: 'ottca',
  authenticator: { method: 'cert', kind: 'certificate' },
  conflict: { field: 'clientCertificate', what: 'certificate' },
  takesUsername: false,
  takesCa: true,
  async enroll(context, token, input) {
    const { cas, clock } = context;
    if (!cas) throw context.unavailable();
    const pending = await context.pending(token);
    const caId = pending.enrollment.caId ?? null;
    const ca = caId === null ? undefined : await cas.findById(caId);
    if (!ca) throw caNotValid('the enrollment names no CA, or its CA was deleted', caId);
    if (!ca.isOttCaEnrollmentEnabled) throw caNotValid(`the CA '${ca.name}' does not allow ottca enrollment (isOttCaEnrollmentEnabled is false)`, caId);
    const chain = presentedChain(input);
    const anchor = { ca, certificate: new X509Certificate(ca.certPem) };
    const notFromCa = (reason: string) => new ApiError('CERT_FAILED_VALIDATION', { cause: { field: 'clientCertificate', reason: `${reason}: it was not issued by the CA '${ca.name}' of this enrollment` } });
    const { leafPem, fingerprint } = await acceptedChain(chain, [anchor], clock.now(), cas, notFromCa);
    const { identity } = pending;
    await context.consume(
      pending,
      { id: newEntityId(), identityId: identity.id, method: 'cert', certFingerprint: fingerprint, certPem: leafPem, issuedByNetwork: false, caId: ca.id, createdAt: clock.now() },
      { fingerprint, caId: ca.id },
    );
    return { identityId: identity.id };
  },
};
