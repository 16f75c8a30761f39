/**
 * Name constraints (RFC 5280 section 4.2.1.10): a CA certificate on a path may permit and exclude subtrees of names,
 * and every certificate below it on the path must have each of its names (pki/general-names.ts) inside a permitted
 * subtree of that name's kind, where the CA permits any of that kind, and inside no excluded one.
 *
 * Checked kinds: dNSName, rfc822Name (also applied to the subject's emailAddress), uniformResourceIdentifier (its
 * host), iPAddress, directoryName. A CA constraining any other kind, or using the minimum and maximum fields that
 * RFC 5280 forbids, cannot be checked and fails the path: refusing is safe, accepting would not be. The anchor's own
 * constraints bind too: an administrator who registers a constrained CA expects its limits to hold.
 */
import type { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { extensionsOf, namesOf, readGeneralName, type GeneralNameValue } from './general-names.js';
import { NameConstraintsSchema, readExactly, type Subtrees } from './name-schemas.js';

const NAME_CONSTRAINTS = '2.5.29.30';

type Kind = 'dns' | 'email' | 'uri' | 'ip' | 'dn';
type Subtree = { kind: 'dns' | 'email' | 'uri'; value: string } | { kind: 'ip'; address: Buffer; mask: Buffer } | { kind: 'dn'; rdns: string[]; text: string };
type CheckedName = Exclude<GeneralNameValue, { kind: 'other' }>;

interface Constraints {
  permitted: Subtree[];
  excluded: Subtree[];
}

const LABEL: Record<Kind, string> = { dns: 'DNS', email: 'email', uri: 'URI', ip: 'IP', dn: 'directory' };

const subjectOf = (cert: X509Certificate) => cert.subject.replace(/\n/g, ', ');

/** A problem that refuses the path, with the words the refusal gives. */
class Unchecked extends Error {}

function subtreesOf(subtrees: Subtrees | undefined, ca: string): Subtree[] {
  return Array.from(subtrees ?? [], ({ base, minimum, maximum }) => {
    // minimum MUST be zero and maximum MUST be absent (RFC 5280 section 4.2.1.10).
    if (minimum !== 0 || maximum !== undefined) throw new Unchecked(`the CA ${ca} gives a name constraint a minimum or maximum, which RFC 5280 forbids and this controller cannot check`);
    const name = readGeneralName(base);
    if (name.kind === 'other') throw new Unchecked(`the CA ${ca} constrains ${name.label} names, which this controller cannot check`);
    if (name.kind !== 'ip') return name;
    // An iPAddress subtree is an address and its mask: 4 + 4 octets for IPv4, 16 + 16 for IPv6.
    if (name.bytes.length !== 8 && name.bytes.length !== 32) throw new Unchecked(`the CA ${ca} has an IP name constraint of ${name.bytes.length} octets (expected 8 or 32)`);
    const half = name.bytes.length / 2;
    return { kind: 'ip', address: name.bytes.subarray(0, half), mask: name.bytes.subarray(half) };
  });
}

/** The constraints `cert` states, or undefined when it states none. Throws Unchecked, or an error when unreadable. */
function constraintsOf(cert: X509Certificate): Constraints | undefined {
  const extension = extensionsOf(cert).find((candidate) => candidate.type === NAME_CONSTRAINTS);
  if (!extension) return undefined;
  const read = readExactly(extension.value, NameConstraintsSchema);
  const ca = subjectOf(cert);
  return { permitted: subtreesOf(read.permittedSubtrees, ca), excluded: subtreesOf(read.excludedSubtrees, ca) };
}

/** A DNS name within a DNS subtree: the subtree itself or any name below it; `.example.com` only names below. */
function dnsWithin(name: string, subtree: string): boolean {
  const n = name.toLowerCase().replace(/\.$/, '');
  const c = subtree.toLowerCase().replace(/\.$/, '');
  if (c === '') return true;
  return c.startsWith('.') ? n.endsWith(c) : n === c || n.endsWith(`.${c}`);
}

/**
 * A host within a host subtree (email and URI constraints): `example.com` is that host only, `.example.com` any host
 * below it (RFC 5280 section 4.2.1.10).
 */
function hostWithin(host: string, subtree: string): boolean {
  const c = subtree.toLowerCase();
  if (c === '') return true;
  return c.startsWith('.') ? host.endsWith(c) : host === c;
}

function emailWithin(mailbox: string, subtree: string): boolean {
  const at = mailbox.lastIndexOf('@');
  const host = mailbox.slice(at + 1).toLowerCase();
  if (!subtree.includes('@')) return hostWithin(host, subtree);
  // A whole mailbox: the local part exactly, the host without case.
  const cut = subtree.lastIndexOf('@');
  return mailbox.slice(0, at) === subtree.slice(0, cut) && host === subtree.slice(cut + 1).toLowerCase();
}

/** The host a URI names, for URI constraints; undefined when it has none, or an IP address, which no host subtree holds. */
function uriHost(uri: string): string | undefined {
  try {
    const host = new URL(uri).hostname.toLowerCase();
    return host === '' || host.startsWith('[') || isIP(host) !== 0 ? undefined : host;
  } catch {
    return undefined;
  }
}

function within(name: CheckedName, subtree: Subtree): boolean {
  if (name.kind === 'dns' && subtree.kind === 'dns') return dnsWithin(name.value, subtree.value);
  if (name.kind === 'email' && subtree.kind === 'email') return emailWithin(name.value, subtree.value);
  if (name.kind === 'uri' && subtree.kind === 'uri') return hostWithin(uriHost(name.value) ?? '', subtree.value);
  if (name.kind === 'dn' && subtree.kind === 'dn') return subtree.rdns.length <= name.rdns.length && subtree.rdns.every((rdn, k) => rdn === name.rdns[k]);
  if (name.kind === 'ip' && subtree.kind === 'ip') {
    if (name.bytes.length !== subtree.address.length) return false;
    return name.bytes.every((byte, k) => (byte & (subtree.mask[k] as number)) === ((subtree.address[k] as number) & (subtree.mask[k] as number)));
  }
  return false;
}

/** Whether an excluded subtree holds `name`, or (a wildcard DNS name) any name the wildcard stands for. */
function excludedBy(name: CheckedName, subtree: Subtree): boolean {
  if (within(name, subtree)) return true;
  if (name.kind !== 'dns' || subtree.kind !== 'dns' || !name.value.startsWith('*.')) return false;
  // `*.example.com` stands for every one-label name below example.com: bad.example.com among them.
  const parent = name.value.slice(2).toLowerCase().replace(/\.$/, '');
  const excluded = subtree.value.toLowerCase().replace(/\.$/, '');
  return !excluded.startsWith('.') && excluded.endsWith(`.${parent}`) && !excluded.slice(0, -(parent.length + 1)).includes('.');
}

function shown(name: CheckedName | Subtree): string {
  switch (name.kind) {
    case 'ip': {
      const bytes = 'bytes' in name ? name.bytes : name.address;
      const groups = (bytes.toString('hex').match(/.{4}/g) ?? []).map((group) => parseInt(group, 16).toString(16));
      const address = bytes.length === 4 ? [...bytes].join('.') : groups.join(':');
      if (!('mask' in name)) return address;
      const bits = [...name.mask].map((byte) => byte.toString(2).padStart(8, '0')).join('');
      return /^1*0*$/.test(bits) ? `${address}/${bits.indexOf('0') === -1 ? bits.length : bits.indexOf('0')}` : `${address}/${[...name.mask].join('.')}`;
    }
    case 'dn':
      return name.text === '' ? '(empty)' : name.text;
    default:
      return name.value === '' ? '(every name)' : name.value;
  }
}

/** Why `name` of `cert` breaks the constraints of `ca`, or undefined when it keeps them. */
function breach(name: CheckedName, constraints: Constraints, cert: X509Certificate, ca: X509Certificate): string | undefined {
  const kind = LABEL[name.kind];
  const whose = `the certificate ${subjectOf(cert)} has the ${kind} name ${shown(name)}`;
  const ofKind = (subtrees: Subtree[]) => subtrees.filter((subtree) => subtree.kind === name.kind);
  const permitted = ofKind(constraints.permitted);
  const excluded = ofKind(constraints.excluded);
  if (permitted.length + excluded.length === 0) return undefined;
  if (name.kind === 'uri' && uriHost(name.value) === undefined) return `${whose}, which has no host name to check against the URI name constraints of the CA ${subjectOf(ca)}`;
  if (name.kind === 'email' && !name.value.includes('@')) return `${whose}, which is not a mailbox to check against the email name constraints of the CA ${subjectOf(ca)}`;
  if (permitted.length > 0 && !permitted.some((subtree) => within(name, subtree))) {
    return `${whose}, outside every permitted ${kind} subtree (${permitted.map(shown).join(', ')}) of the CA ${subjectOf(ca)}`;
  }
  const hit = excluded.find((subtree) => excludedBy(name, subtree));
  return hit && `${whose}, within the excluded ${kind} subtree ${shown(hit)} of the CA ${subjectOf(ca)}`;
}

/**
 * Why `path` (leaf first, anchor last) breaks a CA's name constraints, naming the certificate, the name and the
 * constraint; undefined when every certificate keeps the constraints of every CA above it.
 *
 * @example const problem = nameConstraintProblem([leaf, intermediate, root]);
 */
export function nameConstraintProblem(path: readonly X509Certificate[]): string | undefined {
  for (let k = 1; k < path.length; k++) {
    const ca = path[k] as X509Certificate;
    let constraints: Constraints | undefined;
    try {
      constraints = constraintsOf(ca);
    } catch (error) {
      if (error instanceof Unchecked) return error.message;
      return `the name constraints of the CA ${subjectOf(ca)} could not be read`;
    }
    if (!constraints) continue;
    // Nearest the CA first: an intermediate outside the constraints is the certificate to name, not its leaf.
    for (const cert of path.slice(0, k).reverse()) {
      let names: GeneralNameValue[];
      try {
        names = namesOf(cert);
      } catch {
        return `the names of the certificate ${subjectOf(cert)} could not be read to check the name constraints of the CA ${subjectOf(ca)}`;
      }
      for (const name of names) {
        if (name.kind === 'other') continue;
        const problem = breach(name, constraints, cert, ca);
        if (problem) return problem;
      }
    }
  }
  return undefined;
}
