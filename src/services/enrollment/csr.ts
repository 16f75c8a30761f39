/**
 * Reading the certificate signing request an enrolling client sends: one PEM block holding a PKCS#10
 * CertificationRequest (RFC 2986), signed by the key it carries, with a key this controller will certify.
 * Every refusal is 400 MISSING_OR_INVALID_CSR with a `cause.reason` that says exactly what is wrong.
 */
import { createPublicKey } from 'node:crypto';
import { ApiError } from '../../errors/api-error.js';
import { x509 } from '../../pki/index.js';
import { pemBlocks } from '../../pki/pem.js';

/** The key types certified: EC on P-256 or P-384, RSA of at least this many bits. */
export const MIN_RSA_BITS = 2048;
/**
 * The largest CSR read, in bytes of DER. A CSR an SDK or router sends is well under 2 KiB (an RSA 16384 key with its
 * signature about 4.2 KiB); the bound keeps the ASN.1 decoder, which costs a few microseconds per element, to a few
 * thousand elements however the 1 MiB body is filled.
 */
export const MAX_CSR_DER_BYTES = 16 * 1024;
const ACCEPTED_CURVES: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384' };
const ACCEPTED_KEYS = `EC P-256, EC P-384 or RSA of at least ${MIN_RSA_BITS} bits`;

// RFC 7468 section 7: the label is CERTIFICATE REQUEST; NEW CERTIFICATE REQUEST is what older tools wrote.
const CSR_LABELS = new Set(['CERTIFICATE REQUEST', 'NEW CERTIFICATE REQUEST']);

function invalid(reason: string): ApiError {
  return new ApiError('MISSING_OR_INVALID_CSR', { cause: { field: 'csr', reason } });
}

/** What is wrong with the CSR's public key, or undefined when it is one this controller certifies. */
function keyProblem(spki: ArrayBuffer): string | undefined {
  let key;
  try {
    key = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
  } catch {
    return `its public key cannot be read; the key must be ${ACCEPTED_KEYS}`;
  }
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'ec') {
    if (ACCEPTED_CURVES[details.namedCurve ?? '']) return undefined;
    return `the key is EC on curve ${details.namedCurve ?? 'unknown'}, which is not accepted; the key must be ${ACCEPTED_KEYS}`;
  }
  if (key.asymmetricKeyType === 'rsa') {
    const bits = details.modulusLength ?? 0;
    if (bits >= MIN_RSA_BITS) return undefined;
    return `the key is RSA of ${bits} bits, which is too small; the key must be ${ACCEPTED_KEYS}`;
  }
  return `the key type ${key.asymmetricKeyType ?? 'unknown'} is not accepted; the key must be ${ACCEPTED_KEYS}`;
}

/**
 * Parses and checks a PEM CSR: exactly one CERTIFICATE REQUEST block, DER that decodes as a PKCS#10
 * CertificationRequest, an accepted key type and size, and a signature made by that key (the proof of possession
 * of RFC 2986 section 3). Only the public key of the result is used; the subject the client asked for is ignored.
 *
 * @example
 * const csr = await parseCsr(pemText); // throws ApiError MISSING_OR_INVALID_CSR
 * await issueCertificate({ profile: 'client', publicKey: csr.publicKey, ... });
 */
export async function parseCsr(pem: string | undefined): Promise<x509.Pkcs10CertificateRequest> {
  if (pem === undefined || pem.trim() === '') throw invalid('the request carries no CSR: send the PEM CSR itself as the body, with Content-Type application/x-pem-file');
  const blocks = pemBlocks(pem);
  if (blocks.length === 0) throw invalid('the body is not PEM: no -----BEGIN CERTIFICATE REQUEST----- block was found');
  const requests = blocks.filter((block) => CSR_LABELS.has(block.label));
  if (requests.length === 0) {
    throw invalid(`the body is not a CSR: it holds a PEM ${blocks[0]?.label} block, not a CERTIFICATE REQUEST`);
  }
  if (requests.length > 1) throw invalid(`the body holds ${requests.length} CERTIFICATE REQUEST blocks; send exactly one`);
  const der = requests[0]?.der ?? Buffer.alloc(0);
  if (der.length === 0) throw invalid('the CERTIFICATE REQUEST block is empty or not base64');
  if (der.length > MAX_CSR_DER_BYTES) {
    throw invalid(`the CERTIFICATE REQUEST block holds ${der.length} bytes of DER; at most ${MAX_CSR_DER_BYTES} are accepted`);
  }

  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(der);
  } catch {
    throw invalid('the CERTIFICATE REQUEST block is not a DER-encoded PKCS#10 CertificationRequest (RFC 2986 section 4)');
  }
  const problem = keyProblem(csr.publicKey.rawData);
  if (problem) throw invalid(problem);
  const verified = await csr.verify().catch(() => false);
  if (!verified) throw invalid('the CSR signature does not verify with the public key it carries (RFC 2986 section 3)');
  return csr;
}
