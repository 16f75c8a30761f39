/**
 * What the Edge API shows about a certificate it holds (e.g. an external JWT signer's): the subject's common name,
 * the fingerprint and the validity window, read from the first certificate of a PEM text.
 */
import { certificateFingerprint, firstCertificateDer } from './pem.js';
import { x509 } from './x509.js';

export interface CertificateFacts {
  /** The subject's CN ('' when it has none). */
  commonName: string;
  /** Lowercase hex SHA-1 of the DER, as every `fingerprint` of the Edge API. */
  fingerprint: string;
  notBefore: Date;
  notAfter: Date;
}

/** Throws PkiError when the text holds no certificate. */
export function certificateFacts(certPem: string): CertificateFacts {
  const certificate = new x509.X509Certificate(firstCertificateDer(certPem));
  return {
    commonName: certificate.subjectName.getField('CN')[0] ?? '',
    fingerprint: certificateFingerprint(certPem),
    notBefore: certificate.notBefore,
    notAfter: certificate.notAfter,
  };
}
