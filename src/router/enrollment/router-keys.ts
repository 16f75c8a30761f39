/**
 * The router's key and its two CSRs. The key is made here and never leaves the router: `csr.keyType` picks its kind,
 * and one key serves both certificates, as upstream routers do. The client CSR names the router id as its common name
 * (the controller requires it); the server CSR adds the names `csr.sans` lists, which the controller copies into the
 * server certificate SDKs verify when they connect to the router's edge listeners.
 */
import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { parsePrivateKeyPem } from '../../pki/keys.js';
import { webcrypto, x509, type CryptoKey } from '../../pki/x509.js';
import type { CsrFile, KeyType } from '../../router-config/schema.js';

/** Node's key generation parameters per key type. */
function generationOf(type: KeyType): { kind: 'ec'; namedCurve: string } | { kind: 'rsa'; modulusLength: number } {
  switch (type) {
    case 'ec-p256':
      return { kind: 'ec', namedCurve: 'P-256' };
    case 'ec-p384':
      return { kind: 'ec', namedCurve: 'P-384' };
    case 'rsa-2048':
      return { kind: 'rsa', modulusLength: 2048 };
    case 'rsa-3072':
      return { kind: 'rsa', modulusLength: 3072 };
    case 'rsa-4096':
      return { kind: 'rsa', modulusLength: 4096 };
  }
}

/** A new private key of `type`, PKCS#8 PEM (the form OpenSSL, Go and Node all read). */
export function generateRouterKey(type: KeyType): string {
  const generation = generationOf(type);
  const { privateKey } =
    generation.kind === 'ec'
      ? generateKeyPairSync('ec', { namedCurve: generation.namedCurve })
      : generateKeyPairSync('rsa', { modulusLength: generation.modulusLength });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** The key type of a key, or undefined for a kind `csr.keyType` cannot name (another curve, Ed25519, small RSA). */
export function keyTypeOf(key: KeyObject): KeyType | undefined {
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'ec') return ({ prime256v1: 'ec-p256', secp384r1: 'ec-p384' } as const)[details.namedCurve as 'prime256v1'];
  if (key.asymmetricKeyType === 'rsa') return ({ 2048: 'rsa-2048', 3072: 'rsa-3072', 4096: 'rsa-4096' } as const)[details.modulusLength as 2048];
  return undefined;
}

/** The WebCrypto pair a CSR generator signs with: ECDSA on the key's curve, or RSASSA-PKCS1-v1_5, both with SHA-256/384. */
async function signingPair(key: KeyObject): Promise<{ keys: { privateKey: CryptoKey; publicKey: CryptoKey }; signingAlgorithm: { name: string; hash: string } }> {
  const pkcs8 = key.export({ type: 'pkcs8', format: 'der' });
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const algorithm =
    key.asymmetricKeyType === 'ec'
      ? { name: 'ECDSA', namedCurve: curve === 'secp384r1' ? 'P-384' : 'P-256', hash: curve === 'secp384r1' ? 'SHA-384' : 'SHA-256' }
      : { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  const privateKey = await webcrypto.subtle.importKey('pkcs8', pkcs8, algorithm, false, ['sign']);
  const publicKey = await webcrypto.subtle.importKey('spki', spki, algorithm, true, ['verify']);
  return { keys: { privateKey, publicKey }, signingAlgorithm: algorithm };
}

/**
 * The subject: the csr section's optional attributes, then CN = the router id. Values are typed UTF8Strings so the
 * library does not read RFC 4514 escapes into them (the text is stored as written).
 */
function subjectOf(routerId: string, csr: CsrFile | undefined): x509.Name {
  const text = (value: string) => [{ utf8String: value }];
  const name: x509.JsonNameParams = [];
  const attributes = [
    ['C', csr?.country],
    ['ST', csr?.province],
    ['L', csr?.locality],
    ['O', csr?.organization],
    ['OU', csr?.organizationalUnit],
  ] as const;
  for (const [type, value] of attributes) if (value) name.push({ [type]: text(value) });
  name.push({ CN: text(routerId) });
  return new x509.Name(name);
}

/** Every name of `csr.sans` (DNS, IP, URI, email). */
export function sansOf(csr: CsrFile | undefined): x509.JsonGeneralNames {
  const sans = csr?.sans ?? {};
  return [
    ...(sans.dns ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(sans.ip ?? []).map((value) => ({ type: 'ip' as const, value })),
    ...(sans.uri ?? []).map((value) => ({ type: 'url' as const, value })),
    ...(sans.email ?? []).map((value) => ({ type: 'email' as const, value })),
  ];
}

/** The client and server CSRs (PEM) of router `routerId` for the key `keyPem`. */
export async function routerCsrs(keyPem: string, routerId: string, csr: CsrFile | undefined): Promise<{ certCsr: string; serverCertCsr: string }> {
  const { keys, signingAlgorithm } = await signingPair(parsePrivateKeyPem(keyPem));
  const name = subjectOf(routerId, csr);
  const client = await x509.Pkcs10CertificateRequestGenerator.create({ name, keys, signingAlgorithm });
  const server = await x509.Pkcs10CertificateRequestGenerator.create({
    name,
    keys,
    signingAlgorithm,
    extensions: [new x509.SubjectAlternativeNameExtension(sansOf(csr))],
  });
  return { certCsr: client.toString('pem'), serverCertCsr: server.toString('pem') };
}
