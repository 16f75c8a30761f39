/**
 * Certs-only PKCS#7 bundles (RFC 2315 degenerate SignedData, as profiled by EST, RFC 7030 section
 * 4.1.3): the body of GET /.well-known/est/cacerts, from which enrolling clients learn the CA chain.
 */
import { createHash } from 'node:crypto';
import { PkiError } from './errors.js';
import { splitPemCertificates } from './pem.js';
import { x509 } from './x509.js';

/**
 * Certs-only PKCS#7 of the given certificates: base64 of the DER, wrapped at 64 characters with `\n`
 * and no trailing newline (RFC 7030 serves it as `application/pkcs7-mime` with base64 transfer
 * encoding). Each input may be one PEM certificate or a bundle; identical certificates are included
 * once, in first-seen order. Throws PkiError when there is no certificate at all.
 *
 * @example
 * const body = pkcs7CertsOnlyBase64([rootPem, intermediatePem]);
 * // `base64 -d | openssl pkcs7 -inform DER -print_certs` lists both subjects
 */
export function pkcs7CertsOnlyBase64(certPems: string[]): string {
  const seen = new Set<string>();
  const certificates: x509.X509Certificate[] = [];
  for (const pem of certPems.flatMap((text) => splitPemCertificates(text))) {
    const certificate = parseCertificate(pem);
    const digest = createHash('sha256').update(new Uint8Array(certificate.rawData)).digest('hex');
    if (seen.has(digest)) continue;
    seen.add(digest);
    certificates.push(certificate);
  }
  if (certificates.length === 0) throw new PkiError('a PKCS#7 bundle needs at least one PEM certificate; none was given');
  // The library's base64 export is the DER of ContentInfo{SignedData}; its 'pem' export is labelled
  // CMS, which `openssl pkcs7` rejects, so only the base64 form is used.
  const base64 = new x509.X509Certificates(certificates).export('base64');
  return (base64.match(/.{1,64}/g) ?? []).join('\n');
}

function parseCertificate(pem: string): x509.X509Certificate {
  try {
    return new x509.X509Certificate(pem);
  } catch (error) {
    throw new PkiError(`a certificate for the PKCS#7 bundle cannot be parsed: ${(error as Error).message}`);
  }
}

/**
 * The certificates of a base64 certs-only PKCS#7 (what `pkcs7CertsOnlyBase64` writes and EST serves), as PEM, in
 * bundle order. Throws on anything else; callers say whose bundle it was.
 */
export function certificatesOfPkcs7(base64: string): string[] {
  const der = Buffer.from(base64.replace(/\s+/g, ''), 'base64');
  return [...new x509.X509Certificates(der)].map((cert) => `${cert.toString('pem').trim()}\n`);
}
