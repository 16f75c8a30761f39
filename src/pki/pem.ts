/**
 * PEM text handling (RFC 7468): finding the blocks in a file, splitting certificate bundles into one
 * certificate each, and the SHA-1 fingerprint the Edge API shows for a certificate.
 */
import { createHash } from 'node:crypto';
import { PkiError } from './errors.js';
import { derToPem } from './keys.js';

/** One `-----BEGIN label-----` ... `-----END label-----` block, its base64 body decoded. */
export interface PemBlock {
  label: string;
  der: Buffer;
}

// The END label must repeat the BEGIN label (\1); the body is base64 with any line breaks or spaces.
const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/** Every PEM block in `text`, in order; text between blocks (comments, `subject=` lines) is ignored. */
export function pemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  for (const match of text.matchAll(BLOCK)) {
    const label = match[1] ?? '';
    const body = (match[2] ?? '').replace(/\s+/g, '');
    // A body that is not pure base64 carries RFC 1421 headers (`Proc-Type: 4,ENCRYPTED`), i.e. a legacy
    // encrypted key: report the block with an empty body instead of decoding garbage.
    if (/[^A-Za-z0-9+/=]/.test(body)) {
      blocks.push({ label, der: Buffer.alloc(0) });
      continue;
    }
    blocks.push({ label, der: Buffer.from(body, 'base64') });
  }
  return blocks;
}

/**
 * Splits a PEM text holding several certificates into one PEM string each, in the order they appear.
 * Blocks that are not `CERTIFICATE` (keys, parameters) are ignored. Each result is re-wrapped at 64
 * characters with `\n` line ends and ends with a newline, so joining them gives a valid bundle.
 */
export function splitPemCertificates(pem: string): string[] {
  return pemBlocks(pem)
    .filter((block) => block.label === 'CERTIFICATE' && block.der.length > 0)
    .map((block) => derToPem(block.der, 'CERTIFICATE'));
}

/** DER of the first certificate in a PEM text; throws PkiError when there is none. */
export function firstCertificateDer(certPem: string): Buffer {
  const block = pemBlocks(certPem).find((b) => b.label === 'CERTIFICATE' && b.der.length > 0);
  if (!block) throw new PkiError('the text holds no PEM certificate (no -----BEGIN CERTIFICATE----- block)');
  return block.der;
}

/**
 * Lowercase hex SHA-1 of the certificate's DER: the fingerprint format of the Edge API
 * (`fingerprint` fields, authenticator lookup by client certificate). Uses the first certificate of
 * the PEM text when it holds a chain.
 */
export function certificateFingerprint(certPem: string): string {
  return createHash('sha1').update(firstCertificateDer(certPem)).digest('hex');
}
