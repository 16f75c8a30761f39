/**
 * Reading certificate and key files with checks, each failure a PkiError that names the file and says
 * what is wrong: missing, not PEM, the wrong kind of PEM, unparsable, a key that is not the
 * certificate's, a certificate outside its validity period.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { PkiError } from './errors.js';
import { parsePrivateKeyPem, spkiDer } from './keys.js';
import { pemBlocks, splitPemCertificates } from './pem.js';
import { x509 } from './x509.js';

const KEY_LABELS = new Set(['PRIVATE KEY', 'EC PRIVATE KEY', 'RSA PRIVATE KEY']);

/** The text of `file`; a missing or unreadable file becomes a PkiError in plain words. */
export async function readTextFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new PkiError(`${file}: the file does not exist`);
    if (code === 'EACCES' || code === 'EPERM') throw new PkiError(`${file}: permission denied reading the file`);
    if (code === 'EISDIR') throw new PkiError(`${file}: is a folder, not a file`);
    throw new PkiError(`${file}: cannot be read (${(error as Error).message})`);
  }
}

/** Every certificate in a PEM file, in file order, parsed; throws unless there is at least one. */
export function parseCertificateFile(file: string, text: string): { certificates: x509.X509Certificate[]; pems: string[] } {
  const labels = pemKindsOrThrow(file, text);
  const pems = splitPemCertificates(text);
  if (pems.length === 0) throw new PkiError(`${file}: holds no certificate (found ${labels}); expected -----BEGIN CERTIFICATE-----`);
  const certificates = pems.map((pem, index) => {
    try {
      return new x509.X509Certificate(pem);
    } catch {
      throw new PkiError(`${file}: certificate ${index + 1} is not a valid X.509 certificate`);
    }
  });
  return { certificates, pems };
}

/** The private key in a PEM file (PKCS#8, SEC1 or PKCS#1); encrypted keys are refused. */
export function parsePrivateKeyFile(file: string, text: string): KeyObject {
  const labels = pemKindsOrThrow(file, text);
  const blocks = pemBlocks(text);
  if (blocks.some((b) => b.label === 'ENCRYPTED PRIVATE KEY' || (KEY_LABELS.has(b.label) && b.der.length === 0))) {
    throw new PkiError(`${file}: the private key is encrypted; the controller needs it unencrypted (protect it with file permissions)`);
  }
  const keyBlocks = blocks.filter((b) => KEY_LABELS.has(b.label));
  if (keyBlocks.length === 0) throw new PkiError(`${file}: holds no private key (found ${labels}); expected -----BEGIN PRIVATE KEY-----`);
  if (keyBlocks.length > 1) throw new PkiError(`${file}: holds ${keyBlocks.length} private keys; expected exactly one`);
  try {
    return parsePrivateKeyPem(text);
  } catch {
    // Node's message may quote parts of the input; a key file's content must never reach a log.
    throw new PkiError(`${file}: the private key cannot be parsed`);
  }
}

/**
 * Checks that `key` belongs to the first certificate of `certFile` by comparing public keys. When it
 * belongs to a later one, says so: the usual mistake is a chain with the leaf not first.
 */
export function assertKeyMatchesLeaf(keyFile: string, key: KeyObject, certFile: string, certificates: x509.X509Certificate[]): void {
  const publicKey = spkiDer(key);
  // Both sides go through Node's encoder so equal keys compare equal whatever their original encoding.
  const certKey = (cert: x509.X509Certificate) => createPublicKey({ key: Buffer.from(cert.publicKey.rawData), format: 'der', type: 'spki' });
  const matches = (cert: x509.X509Certificate) => spkiDer(certKey(cert)).equals(publicKey);
  if (certificates[0] && matches(certificates[0])) return;
  const later = certificates.findIndex(matches);
  if (later > 0) {
    throw new PkiError(`${keyFile}: the private key belongs to certificate ${later + 1} in ${certFile}; the leaf certificate must come first`);
  }
  throw new PkiError(`${keyFile}: the private key does not match the certificate in ${certFile}`);
}

/** Checks that `now` lies within the certificate's notBefore..notAfter. */
export function assertCurrentlyValid(file: string, cert: x509.X509Certificate, now: Date): void {
  if (now.getTime() > cert.notAfter.getTime()) {
    throw new PkiError(`${file}: the certificate "${cert.subject}" expired on ${cert.notAfter.toISOString()}`);
  }
  if (now.getTime() < cert.notBefore.getTime()) {
    throw new PkiError(`${file}: the certificate "${cert.subject}" is not valid until ${cert.notBefore.toISOString()}`);
  }
}

/** The labels of the PEM blocks in `text` for messages; throws when there are none (not PEM at all). */
function pemKindsOrThrow(file: string, text: string): string {
  const blocks = pemBlocks(text);
  if (text.trim() === '') throw new PkiError(`${file}: the file is empty; expected PEM`);
  if (blocks.length === 0) throw new PkiError(`${file}: is not PEM (no -----BEGIN ...----- block found)`);
  return [...new Set(blocks.map((b) => b.label))].join(', ');
}
