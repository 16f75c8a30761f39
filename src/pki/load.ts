/**
 * Loading the controller's identity (and, for enrollment, a signing CA) from the files named in the
 * configuration, checked at startup so a wrong file fails with one clear message instead of a TLS
 * handshake error later.
 */
import type { IdentityFiles } from '../config/types.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { PkiError } from './errors.js';
import { assertCurrentlyValid, assertKeyMatchesLeaf, parseCertificateFile, parsePrivateKeyFile, readTextFile } from './files.js';
import type { CertificateAuthority } from './issue.js';
import { toSigningKey } from './keys.js';
import { x509, type CryptoKey } from './x509.js';

export interface LoadedIdentity {
  /** Server chain, leaf first, as served by TLS. */
  serverChainPem: string;
  /** PKCS#8 PEM of the server key. */
  serverKeyPem: string;
  /** Client chain, leaf first, for the controller's outgoing mutual TLS. */
  clientChainPem: string;
  /** PKCS#8 PEM of the client key. */
  clientKeyPem: string;
  /** Every certificate of the CA bundle file, one PEM each. */
  caPems: string[];
  serverLeaf: x509.X509Certificate;
  /** Non-extractable WebCrypto signing key of the server certificate (ES256 for P-256 keys). */
  serverKey: CryptoKey;
}

/**
 * Reads and checks an identity's files: each holds PEM of the right kind, `key` (or `serverKey` when
 * given) matches the first certificate of `serverCert`, `key` matches the first certificate of `cert`,
 * the CA bundle holds at least one certificate, and the server certificate is valid now. Certificate
 * PEMs are returned normalised (LF, 64-column base64, other blocks dropped); keys as PKCS#8 PEM.
 * Throws PkiError naming the file and the problem, e.g.
 * `/x/server.key.pem: the private key does not match the certificate in /x/server.chain.pem`.
 */
export async function loadIdentity(files: IdentityFiles, options: { clock?: Clock } = {}): Promise<LoadedIdentity> {
  const now = (options.clock ?? systemClock).now();
  const serverKeyFile = files.serverKey ?? files.key;

  const server = parseCertificateFile(files.serverCert, await readTextFile(files.serverCert));
  const serverKeyObject = parsePrivateKeyFile(serverKeyFile, await readTextFile(serverKeyFile));
  assertKeyMatchesLeaf(serverKeyFile, serverKeyObject, files.serverCert, server.certificates);

  const client = parseCertificateFile(files.cert, await readTextFile(files.cert));
  const clientKeyObject = serverKeyFile === files.key ? serverKeyObject : parsePrivateKeyFile(files.key, await readTextFile(files.key));
  assertKeyMatchesLeaf(files.key, clientKeyObject, files.cert, client.certificates);

  const ca = parseCertificateFile(files.ca, await readTextFile(files.ca));
  const serverLeaf = server.certificates[0] as x509.X509Certificate;
  assertCurrentlyValid(files.serverCert, serverLeaf, now);

  const serverKey = await toSigningKey(serverKeyObject);
  if (!serverKey) {
    throw new PkiError(`${serverKeyFile}: a ${serverKeyObject.asymmetricKeyType ?? 'unknown'} key cannot sign tokens; use an EC P-256 key`);
  }
  return {
    serverChainPem: server.pems.join(''),
    serverKeyPem: serverKeyObject.export({ type: 'pkcs8', format: 'pem' }) as string,
    clientChainPem: client.pems.join(''),
    clientKeyPem: clientKeyObject.export({ type: 'pkcs8', format: 'pem' }) as string,
    caPems: ca.pems,
    serverLeaf,
    serverKey,
  };
}

/** A signing CA loaded from files, with the chain to hand out beside issued certificates. */
export interface LoadedCertificateAuthority extends CertificateAuthority {
  /** The CA certificate followed by the rest of its file (its own issuers), one PEM each. */
  chainPems: string[];
}

/**
 * Reads a CA certificate and its key for `issueCertificate`, e.g. the enrollment signing CA
 * (`edge.enrollment.signingCert`, which `createControllerPki` fills with the intermediate). Checks the
 * first certificate is a CA, the key matches it, and it is valid now.
 */
export async function loadCertificateAuthority(files: { cert: string; key: string }, options: { clock?: Clock } = {}): Promise<LoadedCertificateAuthority> {
  const { certificates, pems } = parseCertificateFile(files.cert, await readTextFile(files.cert));
  const keyObject = parsePrivateKeyFile(files.key, await readTextFile(files.key));
  assertKeyMatchesLeaf(files.key, keyObject, files.cert, certificates);
  const cert = certificates[0] as x509.X509Certificate;
  if (cert.getExtension(x509.BasicConstraintsExtension)?.ca !== true) {
    throw new PkiError(`${files.cert}: the certificate "${cert.subject}" is not a CA certificate, so it cannot sign`);
  }
  assertCurrentlyValid(files.cert, cert, (options.clock ?? systemClock).now());
  const key = await toSigningKey(keyObject);
  if (!key) throw new PkiError(`${files.key}: a ${keyObject.asymmetricKeyType ?? 'unknown'} key cannot sign certificates`);
  return { cert, key, chainPems: pems };
}
