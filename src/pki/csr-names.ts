/**
 * The names a certificate or a certificate request carries: the subject alternative names (RFC 5280 section
 * 4.2.1.6), read from a certificate's extension or from a PKCS#10 request's extensionRequest attribute (RFC 2986
 * section 4.1, RFC 2985 section 5.4.2), sorted by kind.
 */
import { x509 } from './x509.js';

const SAN_OID = '2.5.29.17';

export interface AltNames {
  dns: string[];
  ip: string[];
  uri: string[];
  email: string[];
  /** Kinds other than the four above (directory names, registered ids, other names), by the library's type name. */
  other: string[];
}

function sorted(extension: x509.Extension | undefined): AltNames {
  const names: AltNames = { dns: [], ip: [], uri: [], email: [], other: [] };
  if (!extension) return names;
  for (const { type, value } of new x509.SubjectAlternativeNameExtension(extension.rawData).names.toJSON()) {
    if (type === 'dns') names.dns.push(value);
    else if (type === 'ip') names.ip.push(value);
    else if (type === 'url') names.uri.push(value);
    else if (type === 'email') names.email.push(value);
    else names.other.push(type);
  }
  return names;
}

/** The alternative names a CSR asks for (none when it has no extension request). */
export function requestedAltNames(csr: x509.Pkcs10CertificateRequest): AltNames {
  return sorted(csr.extensions.find((extension) => extension.type === SAN_OID));
}

/** The alternative names of a certificate. */
export function certificateAltNames(cert: x509.X509Certificate): AltNames {
  return sorted(cert.extensions.find((extension) => extension.type === SAN_OID));
}
