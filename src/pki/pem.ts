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

const BEGIN = '-----BEGIN ';
const DASHES = '-----';
/** Labels are short (`CERTIFICATE`, `EC PRIVATE KEY`, `NEW CERTIFICATE REQUEST`); longer text is not a label. */
const MAX_LABEL = 64;
const LABEL = /^[A-Z0-9 ]+$/;

/**
 * Every PEM block in `text`, in order; text between blocks (comments, `subject=` lines) is ignored. The END line must
 * repeat the BEGIN label; the body is base64 with any line breaks or spaces.
 *
 * A scanner, not a regular expression, so that the time is linear in the text whatever it holds: a lazy regex over
 * text with many BEGIN lines and no END (one 1 MiB enrollment body) ran for seconds, since every BEGIN rescanned the
 * rest of the text. Here each search for an END starts where the previous block ended, and a label found to have no
 * END after some point is remembered as having none after any later point.
 */
export function pemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  const unterminated = new Set<string>();
  let from = 0;
  for (;;) {
    const begin = text.indexOf(BEGIN, from);
    if (begin < 0) break;
    const labelStart = begin + BEGIN.length;
    const labelEnd = text.indexOf(DASHES, labelStart);
    const label = labelEnd < 0 ? '' : text.slice(labelStart, labelEnd);
    if (labelEnd < 0 || labelEnd - labelStart > MAX_LABEL || !LABEL.test(label) || unterminated.has(label)) {
      from = labelStart;
      continue;
    }
    const bodyStart = labelEnd + DASHES.length;
    const endLine = `-----END ${label}-----`;
    const end = text.indexOf(endLine, bodyStart);
    if (end < 0) {
      unterminated.add(label);
      from = labelStart;
      continue;
    }
    blocks.push(decodeBlock(label, text.slice(bodyStart, end)));
    from = end + endLine.length;
  }
  return blocks;
}

function decodeBlock(label: string, rawBody: string): PemBlock {
  const body = rawBody.replace(/\s+/g, '');
  // A body that is not pure base64 carries RFC 1421 headers (`Proc-Type: 4,ENCRYPTED`), i.e. a legacy encrypted
  // key: report the block with an empty body instead of decoding garbage.
  if (/[^A-Za-z0-9+/=]/.test(body)) return { label, der: Buffer.alloc(0) };
  return { label, der: Buffer.from(body, 'base64') };
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
