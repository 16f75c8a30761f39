/**
 * Certificate issue by profile. Every certificate the controller makes goes through `issueCertificate`
 * (server and client leaves, the intermediate CA, and later enrolled identities' client certificates
 * from a CSR) or, for the one self-signed root, `createRootCertificate`. A profile fixes the
 * extensions, so callers choose what a certificate is for, never its individual bits.
 */
import { newRandomBytes } from '../shared/random.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { PkiError } from './errors.js';
import { EC_P256, type KeyPair } from './keys.js';
import type { SubjectAltNames } from './subject-alt-names.js';
import { x509, type CryptoKey } from './x509.js';

/** What a certificate is for; each profile maps to a fixed set of extensions (see `profileExtensions`). */
export type CertificateProfile = 'server' | 'client' | 'intermediate-ca';

/** A CA that can sign: its certificate and the matching private key. */
export interface CertificateAuthority {
  cert: x509.X509Certificate;
  key: CryptoKey;
}

/** Subject distinguished name parts; only the common name is required. */
export interface SubjectName {
  commonName: string;
  organization?: string;
  organizationalUnit?: string;
}

export interface IssueCertificateRequest {
  profile: CertificateProfile;
  /** The subject's public key: a CryptoKey, or `csr.publicKey` of a parsed (and verified) CSR. */
  publicKey: CryptoKey | x509.PublicKey;
  subject: SubjectName;
  /** Alternative names; the server profile needs at least one DNS name or IP address. */
  subjectAltNames?: SubjectAltNames;
  /** Lifetime in milliseconds; capped so the certificate never outlives its issuer. */
  validityMs: number;
  issuer: CertificateAuthority;
  clock?: Clock;
}

// Certificates start a little in the past so a peer whose clock runs slightly behind still accepts them.
const BACKDATE_MS = 5 * 60 * 1000;

/**
 * Issues a certificate for `publicKey` under `profile`, signed by `issuer` (its key algorithm, SHA-256).
 *
 * - `server`: digitalSignature, EKU serverAuth, SANs required.
 * - `client`: digitalSignature, EKU clientAuth (an enrolled identity, or the controller's own client).
 * - `intermediate-ca`: CA with pathLen 0 (it signs leaves only), keyCertSign and cRLSign.
 *
 * The serial is 16 random bytes, positive; validity starts five minutes before the clock's now and
 * ends at now + `validityMs` or at the issuer's own notAfter, whichever is earlier.
 *
 * @example
 * const csr = new x509.Pkcs10CertificateRequest(csrPem); // verify it first: await csr.verify()
 * const cert = await issueCertificate({ profile: 'client', publicKey: csr.publicKey,
 *   subject: { commonName: identityId }, validityMs: durations.edgeIdentity, issuer: signingCa });
 */
export async function issueCertificate(request: IssueCertificateRequest): Promise<x509.X509Certificate> {
  const { profile, issuer, subjectAltNames } = request;
  const hasHostName = (subjectAltNames?.dns?.length ?? 0) + (subjectAltNames?.ip?.length ?? 0) > 0;
  if (profile === 'server' && !hasHostName) throw new PkiError('a server certificate needs at least one DNS name or IP address');
  if (!issuerIsCa(issuer.cert)) throw new PkiError(`the issuer "${issuer.cert.subject}" is not a CA certificate`);

  const now = (request.clock ?? systemClock).now();
  const notAfter = new Date(Math.min(now.getTime() + request.validityMs, issuer.cert.notAfter.getTime()));
  const publicKey = await x509.PublicKey.create(request.publicKey);
  const extensions = [
    ...profileExtensions(profile),
    await x509.SubjectKeyIdentifierExtension.create(publicKey),
    await authorityKeyIdentifier(issuer.cert),
  ];
  const altNames = generalNames(subjectAltNames);
  if (altNames.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(altNames));

  return x509.X509CertificateGenerator.create({
    serialNumber: newSerialNumber(),
    subject: subjectName(request.subject),
    issuer: issuer.cert.subjectName,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter,
    publicKey,
    signingKey: issuer.key,
    // The issuer's own algorithm (ECDSA here; an operator's RSA enrollment CA also works), always SHA-256.
    signingAlgorithm: { name: issuer.key.algorithm.name, hash: 'SHA-256' },
    extensions,
  });
}

/** A self-signed root CA certificate (no path length limit; it signs intermediates). */
export async function createRootCertificate(options: {
  keys: KeyPair;
  subject: SubjectName;
  validityMs: number;
  clock?: Clock;
}): Promise<x509.X509Certificate> {
  const now = (options.clock ?? systemClock).now();
  return x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: newSerialNumber(),
    name: subjectName(options.subject),
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + options.validityMs),
    keys: options.keys,
    signingAlgorithm: EC_P256,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(options.keys.publicKey),
    ],
  });
}

/** The fixed extensions of each profile (RFC 5280 section 4.2.1; CA constraints are critical). */
function profileExtensions(profile: CertificateProfile): x509.Extension[] {
  const { digitalSignature, keyCertSign, cRLSign } = x509.KeyUsageFlags;
  switch (profile) {
    case 'server':
      return [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      ];
    case 'client':
      return [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      ];
    case 'intermediate-ca':
      return [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(keyCertSign | cRLSign | digitalSignature, true),
      ];
  }
}

/** The AKI must equal the issuer's SKI for chain builders to match them; reuse it when present. */
async function authorityKeyIdentifier(issuer: x509.X509Certificate): Promise<x509.AuthorityKeyIdentifierExtension> {
  const ski = issuer.getExtension(x509.SubjectKeyIdentifierExtension);
  if (ski) return new x509.AuthorityKeyIdentifierExtension(ski.keyId);
  return x509.AuthorityKeyIdentifierExtension.create(issuer.publicKey);
}

function issuerIsCa(cert: x509.X509Certificate): boolean {
  return cert.getExtension(x509.BasicConstraintsExtension)?.ca === true;
}

/**
 * 16 random bytes as a positive integer (RFC 5280 section 4.1.2.2 allows up to 20 octets): the top
 * bit is cleared so it is not negative and the next one set so DER keeps all 16 bytes (126 random bits).
 */
function newSerialNumber(): string {
  const bytes = newRandomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x40;
  return bytes.toString('hex');
}

/**
 * The subject as a Name built from typed values. The library treats plain strings as RFC 4514 text
 * (it strips quotes and backslashes and reads `#...` as hex), so each value is given as an explicit
 * UTF8String (RFC 5280 section 4.1.2.6 prefers it) and is stored exactly as written.
 */
function subjectName(subject: SubjectName): x509.Name {
  const name: x509.JsonNameParams = [];
  if (subject.organization) name.push({ O: [{ utf8String: subject.organization }] });
  if (subject.organizationalUnit) name.push({ OU: [{ utf8String: subject.organizationalUnit }] });
  name.push({ CN: [{ utf8String: subject.commonName }] });
  return new x509.Name(name);
}

function generalNames(names: SubjectAltNames | undefined): x509.JsonGeneralNames {
  return [
    ...(names?.dns ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(names?.ip ?? []).map((value) => ({ type: 'ip' as const, value })),
    ...(names?.uri ?? []).map((value) => ({ type: 'url' as const, value })),
  ];
}
