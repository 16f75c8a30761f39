/**
 * The names a certificate carries, as RFC 5280 name constraints judge them (section 4.2.1.10): its subject
 * distinguished name, the emailAddress attributes of that subject, and every GeneralName of its subjectAltName. Also
 * the certificate's extensions as found (type, criticality, value), read once per certificate object.
 */
import type { X509Certificate } from 'node:crypto';
import { AltNames, readExactly, UnreadableExtension, type OctetIpGeneralName } from './name-schemas.js';
import { x509 } from './x509.js';

const SUBJECT_ALT_NAME = '2.5.29.17';
/** PKCS #9 emailAddress, which @peculiar/x509 names `E` in a name's JSON form. */
const EMAIL_ADDRESS = ['E', '1.2.840.113549.1.9.1'];

/**
 * A name of a kind that constraints here are checked for (DNS, email, URI, IP, directory), or of another kind
 * (otherName, x400Address, ediPartyName, registeredID), which no constraint checked here binds.
 */
export type GeneralNameValue =
  | { kind: 'dns' | 'email' | 'uri'; value: string }
  | { kind: 'ip'; bytes: Buffer }
  | { kind: 'dn'; rdns: string[]; text: string }
  | { kind: 'other'; label: string };

export interface CertificateExtension {
  type: string;
  critical: boolean;
  value: Buffer;
}

/** The GeneralName choices no constraint here is checked for, by the library's field and RFC 5280's name. */
const OTHER_KINDS = { otherName: 'otherName', x400Address: 'x400Address', ediPartyName: 'ediPartyName', registeredID: 'registeredID' } as const;

/** An IA5String holds ASCII only; the library would read other bytes as Latin-1 characters. */
function ia5(value: string): string {
  if (/[^\x00-\x7f]/.test(value)) throw new UnreadableExtension('an IA5String holds ASCII only');
  return value;
}

/**
 * A distinguished name in comparable form: one string per RDN, its attributes sorted, each value with its case folded
 * and its white space collapsed (RFC 5280 section 7.1 asks for the comparison of RFC 4518; this is its common core).
 */
export function comparableName(name: InstanceType<typeof x509.Name>): { rdns: string[]; text: string } {
  const fold = (value: string) => value.trim().replace(/\s+/g, ' ').toLowerCase();
  const rdns = name.toJSON().map((rdn) =>
    Object.entries(rdn)
      .flatMap(([type, values]) => values.map((value) => `${type}=${fold(value)}`))
      .sort()
      .join('+'),
  );
  return { rdns, text: name.toString() };
}

/** One GeneralName as the library read it; throws UnreadableExtension when it holds no choice. */
export function readGeneralName(name: OctetIpGeneralName): GeneralNameValue {
  if (name.rfc822Name !== undefined) return { kind: 'email', value: ia5(name.rfc822Name) };
  if (name.dNSName !== undefined) return { kind: 'dns', value: ia5(name.dNSName) };
  if (name.uniformResourceIdentifier !== undefined) return { kind: 'uri', value: ia5(name.uniformResourceIdentifier) };
  if (name.iPAddress !== undefined) return { kind: 'ip', bytes: Buffer.from(name.iPAddress, 'hex') };
  if (name.directoryName !== undefined) return { kind: 'dn', ...comparableName(new x509.Name(name.directoryName)) };
  for (const [field, label] of Object.entries(OTHER_KINDS)) {
    if (name[field as keyof typeof OTHER_KINDS] !== undefined) return { kind: 'other', label };
  }
  throw new UnreadableExtension('a GeneralName holds none of its choices');
}

interface Facts {
  extensions: CertificateExtension[];
  subject: InstanceType<typeof x509.Name>;
}

const facts = new WeakMap<X509Certificate, Facts>();

function factsOf(cert: X509Certificate): Facts {
  let found = facts.get(cert);
  if (!found) {
    const parsed = new x509.X509Certificate(cert.raw);
    const extensions = parsed.extensions.map((extension) => ({ type: extension.type, critical: extension.critical, value: Buffer.from(extension.value) }));
    found = { extensions, subject: parsed.subjectName };
    facts.set(cert, found);
  }
  return found;
}

/** The certificate's extensions (type OID, criticality, DER value). */
export function extensionsOf(cert: X509Certificate): CertificateExtension[] {
  return factsOf(cert).extensions;
}

/**
 * Every name of `cert` that name constraints judge: its subject (when not empty), the emailAddress values in it, and
 * its subject alternative names. Throws when the subjectAltName cannot be read.
 */
export function namesOf(cert: X509Certificate): GeneralNameValue[] {
  const { extensions, subject } = factsOf(cert);
  const names: GeneralNameValue[] = [];
  const json = subject.toJSON();
  if (json.length > 0) names.push({ kind: 'dn', ...comparableName(subject) });
  for (const rdn of json) {
    for (const type of EMAIL_ADDRESS) for (const value of rdn[type] ?? []) names.push({ kind: 'email', value });
  }
  const alt = extensions.find((extension) => extension.type === SUBJECT_ALT_NAME);
  if (alt) names.push(...Array.from(readExactly(alt.value, AltNames), readGeneralName));
  return names;
}
