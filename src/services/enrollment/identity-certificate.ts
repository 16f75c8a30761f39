/**
 * An identity's client certificate as the controller issues it, whether at `ott` enrollment or when a certificate
 * authenticator is extended: only the key comes from the CSR; the subject (CN = the identity's id), its SPIFFE name
 * and its lifetime are the controller's to decide, in one place.
 */
import { certificateFingerprint, issueCertificate, type IssueCertificateRequest } from '../../pki/index.js';

/** Lifetime of an identity's client certificate (the reference issues one year). */
export const CLIENT_CERT_VALIDITY_MS = 365 * 24 * 60 * 60 * 1000;

/** The leaf (PEM, one trailing newline) and its fingerprint (what the certificate authenticator stores). */
export async function issueIdentityCertificate(request: Pick<IssueCertificateRequest, 'publicKey' | 'issuer' | 'clock'> & { identityId: string }): Promise<{ pem: string; fingerprint: string }> {
  const { identityId, ...rest } = request;
  const cert = await issueCertificate({
    ...rest,
    profile: 'client',
    subject: { commonName: identityId },
    subjectAltNames: { uri: [`spiffe://svc/identity/${identityId}`] },
    validityMs: CLIENT_CERT_VALIDITY_MS,
  });
  const pem = `${cert.toString('pem').trimEnd()}\n`;
  return { pem, fingerprint: certificateFingerprint(pem) };
}
