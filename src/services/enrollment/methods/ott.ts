/**
 * Enrollment method `ott` (reference facts §9): a one-time token and a CSR buy a client certificate signed by the
 * enrollment signing CA, and a certificate authenticator for it.
 */
import type { NewAuthenticator } from '../../../persistence/repositories/enrollments.js';
import { newEntityId } from '../../../shared/random.js';
import { parseCsr } from '../csr.js';
import { issueIdentityCertificate } from '../identity-certificate.js';
import type { EnrollMethod } from './enroll-method.js';

/** The CSR PEM as the client sent it (undefined when the body was not text). */
export interface OttInput {
  csrPem: string | undefined;
}

/** `certChainPem` is the leaf then the CA chain. */
export interface OttResult {
  identityId: string;
  certChainPem: string;
}

export const ottEnrollment: EnrollMethod<OttInput, OttResult> = {
  name: 'ott',
  authenticator: { method: 'cert', kind: 'certificate' },
  conflict: { field: 'csr', what: 'certificate' },
  takesUsername: false,
  async enroll(context, token, { csrPem }) {
    const { signingCa, clock } = context;
    // Checked before the token, so a controller without an edge section says so whatever the token.
    if (!signingCa) throw context.unavailable();
    const pending = await context.pending(token);
    const { identity } = pending;
    const csr = await parseCsr(csrPem);
    const { pem: leafPem, fingerprint } = await issueIdentityCertificate({ identityId: identity.id, publicKey: csr.publicKey, issuer: signingCa, clock });
    const now = clock.now();
    const authenticator: NewAuthenticator = { id: newEntityId(), identityId: identity.id, method: 'cert', certFingerprint: fingerprint, certPem: leafPem, createdAt: now };
    await context.consume(pending, authenticator, { fingerprint });
    return { identityId: identity.id, certChainPem: [leafPem, ...signingCa.chainPems].join('') };
  },
};
