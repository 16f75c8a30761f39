/**
 * Verifying a presented certificate chain against CAs known only at run time (third-party CAs, decision 0037): the
 * TLS listener asks for a client certificate without judging it, and the controller checks here that the leaf leads,
 * through the intermediates the client sent after it (leaf first, as TLS sends them), to one of the given anchors.
 *
 * Each link: the child names the parent as issuer (Node's checkIssued: names and key identifiers), the child's
 * signature verifies with the parent's key, and the parent is a CA (basicConstraints cA; and keyCertSign when it has
 * a key usage extension, RFC 5280 section 4.2.1.3), and no CA on the path has more CAs below it than its
 * basicConstraints pathLenConstraint allows (RFC 5280 section 4.2.1.9). Every certificate below a CA keeps that
 * CA's name constraints (RFC 5280 section 4.2.1.10; pki/name-constraints.ts), and no certificate but the anchor has a
 * critical extension this check does not process (RFC 5280 section 4.2: such a certificate MUST be rejected). Every
 * certificate on the path, anchor included, must be within its validity window; an expired one is reported as
 * CERT_HAS_EXPIRED so that the auth policy's allowExpiredCerts can judge it as it judges OpenSSL's verdict, and so it
 * is judged last, after every check no policy may waive. A leaf with an extended key usage must allow client
 * authentication, and the leaf must be a leaf (decision 0057): not a CA (basicConstraints CA:TRUE), and, when it has a
 * keyUsage extension, one allowing digitalSignature or keyAgreement (what a TLS client key does). A leaf with no
 * keyUsage at all passes: RFC 5280 section 4.2.1.3 reads an absent extension as no restriction.
 */
import { X509Certificate } from 'node:crypto';
import { extensionsOf } from './general-names.js';
import { nameConstraintProblem } from './name-constraints.js';
import { x509 } from './x509.js';

/** RFC 5280 section 4.2.1.12: id-kp-clientAuth, and anyExtendedKeyUsage. */
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_EKU = '2.5.29.37.0';
/** The longest path followed (leaf and intermediates); real chains have two or three links. */
const MAX_DEPTH = 8;
/**
 * The extensions a critical flag may mark on a path certificate: those these checks process (basicConstraints,
 * keyUsage, extKeyUsage, subjectAltName, nameConstraints), the key identifiers that only help find the issuer, and
 * certificatePolicies, which never refuse a path whose acceptable policies are any (RFC 5280 section 6.1.1, with no
 * explicit policy required). policyConstraints, policyMappings and inhibitAnyPolicy are not processed, so marked
 * critical (as RFC 5280 asks of CAs) they refuse the path.
 */
const PROCESSED_EXTENSIONS = new Set(['2.5.29.19', '2.5.29.15', '2.5.29.37', '2.5.29.17', '2.5.29.30', '2.5.29.14', '2.5.29.35', '2.5.29.32']);

export type ChainVerdict<A> =
  | { ok: true; anchor: A }
  | {
      ok: false;
      code: 'CERT_HAS_EXPIRED' | 'CERT_NOT_YET_VALID' | 'UNTRUSTED' | 'NOT_CLIENT_AUTH' | 'NOT_A_LEAF' | 'UNREADABLE' | 'NAME_CONSTRAINTS_VIOLATION' | 'UNHANDLED_CRITICAL_EXTENSION';
      reason: string;
      anchor?: A;
    };

/** Reads PEM or DER certificates; undefined when one is not a certificate. */
export function readCertificates(certs: ReadonlyArray<string | Buffer>): X509Certificate[] | undefined {
  try {
    return certs.map((cert) => new X509Certificate(cert));
  } catch {
    return undefined;
  }
}

const issuers = new WeakMap<X509Certificate, boolean>();

/**
 * The keyUsage bits `cert` states (x509.KeyUsageFlags), null when it states none (RFC 5280 section 4.2.1.3: no
 * restriction), or 'unreadable' when its extensions cannot be read.
 */
function keyUsageOf(cert: X509Certificate): number | null | 'unreadable' {
  try {
    return new x509.X509Certificate(cert.raw).getExtension(x509.KeyUsagesExtension)?.usages ?? null;
  } catch {
    return 'unreadable';
  }
}

/** Whether `cert` may sign certificates: a CA whose key usage, if it states one, includes keyCertSign. */
function mayIssue(cert: X509Certificate): boolean {
  const known = issuers.get(cert);
  if (known !== undefined) return known;
  const usage = cert.ca ? keyUsageOf(cert) : 'unreadable';
  // A presented CA certificate the ASN.1 reader cannot read signs nothing here (never a server error).
  const allowed = cert.ca && usage !== 'unreadable' && (usage === null || (usage & x509.KeyUsageFlags.keyCertSign) !== 0);
  issuers.set(cert, allowed);
  return allowed;
}

/**
 * Why `leaf` cannot be a client certificate, or undefined when it can: a CA certificate signs, it does not log in, and a
 * key whose keyUsage allows neither digitalSignature nor keyAgreement cannot make a TLS client's proof.
 */
export function leafProblem(leaf: X509Certificate): string | undefined {
  if (leaf.ca) return 'the certificate is a CA certificate (basicConstraints CA:TRUE), not a client certificate';
  const usage = keyUsageOf(leaf);
  if (usage === 'unreadable') return 'the extensions of the certificate could not be read';
  const { digitalSignature, keyAgreement } = x509.KeyUsageFlags;
  if (usage !== null && (usage & (digitalSignature | keyAgreement)) === 0) return 'the certificate keyUsage lacks digitalSignature and keyAgreement';
  return undefined;
}

/** The pathLenConstraint of a CA certificate, if it states one. */
function pathLength(cert: X509Certificate): number | undefined {
  return new x509.X509Certificate(cert.raw).getExtension(x509.BasicConstraintsExtension)?.pathLength;
}

/**
 * The first CA of `path` (leaf first, anchor last) with more CA certificates between it and the leaf than its
 * pathLenConstraint allows (RFC 5280 section 4.2.1.9; self-issued intermediates, which the rule does not count, are
 * not expected in a client's chain and count here, the stricter reading).
 */
function pathLengthProblem(path: readonly X509Certificate[]): ChainVerdict<never> | undefined {
  for (let k = 2; k < path.length; k++) {
    const cert = path[k] as X509Certificate;
    const allowed = pathLength(cert);
    if (allowed !== undefined && k - 1 > allowed) {
      return { ok: false, code: 'UNTRUSTED', reason: `the CA ${cert.subject.replace(/\n/g, ', ')} allows ${allowed} CA certificate(s) below it; the chain has ${k - 1}` };
    }
  }
  return undefined;
}

/** The first certificate below the anchor (the last of `path`) with a critical extension not processed here. */
function criticalExtensionProblem(path: readonly X509Certificate[]): ChainVerdict<never> | undefined {
  for (const cert of path.slice(0, -1)) {
    let extensions: ReturnType<typeof extensionsOf>;
    try {
      extensions = extensionsOf(cert);
    } catch {
      // Node read the certificate but the ASN.1 reader did not: what it holds cannot be judged, so it is not trusted.
      return { ok: false, code: 'UNREADABLE', reason: `the extensions of the certificate ${cert.subject.replace(/\n/g, ', ')} could not be read` };
    }
    const unknown = extensions.find((extension) => extension.critical && !PROCESSED_EXTENSIONS.has(extension.type));
    if (unknown) {
      return { ok: false, code: 'UNHANDLED_CRITICAL_EXTENSION', reason: `the certificate ${cert.subject.replace(/\n/g, ', ')} has the critical extension ${unknown.type}, which is not processed here` };
    }
  }
  return undefined;
}

/** The path's name constraints problem (pki/name-constraints.ts) as a verdict. */
function nameProblem(path: readonly X509Certificate[]): ChainVerdict<never> | undefined {
  const reason = nameConstraintProblem(path);
  return reason === undefined ? undefined : { ok: false, code: 'NAME_CONSTRAINTS_VIOLATION', reason };
}

function issuedBy(child: X509Certificate, parent: X509Certificate): boolean {
  try {
    return child.checkIssued(parent) && child.verify(parent.publicKey);
  } catch {
    return false;
  }
}

function validityProblem(cert: X509Certificate, now: Date): ChainVerdict<never> | undefined {
  const t = now.getTime();
  if (new Date(cert.validFrom).getTime() > t) return { ok: false, code: 'CERT_NOT_YET_VALID', reason: `the certificate ${cert.subject.replace(/\n/g, ', ')} is not valid before ${cert.validFrom}` };
  if (new Date(cert.validTo).getTime() < t) return { ok: false, code: 'CERT_HAS_EXPIRED', reason: `the certificate ${cert.subject.replace(/\n/g, ', ')} expired at ${cert.validTo}` };
  return undefined;
}

/**
 * Whether `chain` (leaf first, then intermediates in any order) leads to one of `anchors`, whose certificates are
 * read by `certOf`. The first anchor reached wins, so a registered intermediate is an anchor as much as a root.
 *
 * @example const verdict = verifyChain(presented, verifiedCas, (ca) => ca.certificate, clock.now());
 */
export function verifyChain<A>(chain: readonly X509Certificate[], anchors: readonly A[], certOf: (anchor: A) => X509Certificate, now: Date): ChainVerdict<A> {
  const [leaf, ...intermediates] = chain;
  if (!leaf) return { ok: false, code: 'UNREADABLE', reason: 'no certificate was presented' };
  const eku = leaf.keyUsage;
  if (eku && eku.length > 0 && !eku.includes(CLIENT_AUTH) && !eku.includes(ANY_EKU)) {
    return { ok: false, code: 'NOT_CLIENT_AUTH', reason: 'the certificate does not allow client authentication (extended key usage)' };
  }
  const notLeaf = leafProblem(leaf);
  if (notLeaf) return { ok: false, code: 'NOT_A_LEAF', reason: notLeaf };
  const path: X509Certificate[] = [leaf];
  let current = leaf;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const anchor = anchors.find((candidate) => {
      const cert = certOf(candidate);
      return mayIssue(cert) && cert.fingerprint256 !== current.fingerprint256 && issuedBy(current, cert);
    });
    if (anchor !== undefined) {
      const full = [...path, certOf(anchor)];
      const refused = pathLengthProblem(full) ?? criticalExtensionProblem(full) ?? nameProblem(full);
      if (refused) return { ...refused, anchor };
      for (const cert of full) {
        const problem = validityProblem(cert, now);
        if (problem) return { ...problem, anchor };
      }
      return { ok: true, anchor };
    }
    const parent = intermediates.find((cert) => mayIssue(cert) && !path.includes(cert) && issuedBy(current, cert));
    if (!parent) break;
    path.push(parent);
    current = parent;
  }
  return { ok: false, code: 'UNTRUSTED', reason: 'the certificate chain does not lead to a trusted CA' };
}
