/**
 * The controller's PKI: creating a root -> intermediate -> leaf hierarchy, loading and checking
 * identity files, issuing certificates by profile, PKCS#7 bundles for EST, PEM helpers.
 */
export { PkiError } from './errors.js';
export { createControllerPki, identityFilesFromPki, PKI_LIFETIMES_MS, type PkiPaths } from './create.js';
export { loadIdentity, loadCertificateAuthority, type LoadedIdentity, type LoadedCertificateAuthority } from './load.js';
export {
  issueCertificate,
  type CertificateAuthority,
  type CertificateProfile,
  type IssueCertificateRequest,
  type SubjectName,
} from './issue.js';
export { subjectAltNamesForHosts, DEFAULT_SERVER_HOSTS, type SubjectAltNames } from './subject-alt-names.js';
export { pkcs7CertsOnlyBase64 } from './pkcs7.js';
export { splitPemCertificates, certificateFingerprint } from './pem.js';
export { certificateFacts, type CertificateFacts } from './certificate-facts.js';
export { generateKeyPair, privateKeyToPem, type KeyPair } from './keys.js';
export { x509, type CryptoKey } from './x509.js';
