/**
 * Key pairs and private-key files: generating EC P-256 keys, writing them as PKCS#8 PEM, and reading
 * a private key file (PKCS#8, or the SEC1/PKCS#1 forms openssl writes) into both a Node KeyObject, for
 * comparing with a certificate, and a WebCrypto signing key, for the certificate and token code.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { webcrypto, type CryptoKey } from './x509.js';

/** ECDSA on P-256 with SHA-256: what every certificate here uses and what ES256 tokens need. */
export const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface KeyPair {
  publicKey: CryptoKey;
  privateKey: CryptoKey;
}

/** A fresh P-256 key pair. The private key is extractable only so it can be written to its file once. */
export async function generateKeyPair(): Promise<KeyPair> {
  return (await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify'])) as KeyPair;
}

/** PEM text of a private key in PKCS#8 (`BEGIN PRIVATE KEY`), the form openssl, Node and Go all read. */
export async function privateKeyToPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return derToPem(der, 'PRIVATE KEY');
}

/** Wraps DER in a PEM block: base64 in 64-character lines (RFC 7468 section 2), ending with a newline. */
export function derToPem(der: Uint8Array, label: string): string {
  const base64 = Buffer.from(der).toString('base64');
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** DER of the SubjectPublicKeyInfo, re-encoded by Node so two encodings of one key compare equal. */
export function spkiDer(key: KeyObject): Buffer {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return publicKey.export({ type: 'spki', format: 'der' });
}

/** Parses a private key PEM; throws Node's error on anything it cannot read (the caller names the file). */
export function parsePrivateKeyPem(pem: string): KeyObject {
  return createPrivateKey({ key: pem, format: 'pem' });
}

/**
 * Imports a private KeyObject into WebCrypto as a non-extractable signing key. The algorithm follows
 * the key type: ECDSA on its own curve, RSASSA-PKCS1-v1_5 with SHA-256 (RS256), or Ed25519.
 * Returns undefined for key types WebCrypto cannot sign with.
 */
export async function toSigningKey(key: KeyObject): Promise<CryptoKey | undefined> {
  const pkcs8 = key.export({ type: 'pkcs8', format: 'der' });
  const details = key.asymmetricKeyDetails;
  switch (key.asymmetricKeyType) {
    case 'ec': {
      const namedCurve = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' }[details?.namedCurve ?? ''];
      if (!namedCurve) return undefined;
      return webcrypto.subtle.importKey('pkcs8', pkcs8, { name: 'ECDSA', namedCurve }, false, ['sign']);
    }
    case 'rsa':
      return webcrypto.subtle.importKey('pkcs8', pkcs8, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
    case 'ed25519':
      return webcrypto.subtle.importKey('pkcs8', pkcs8, { name: 'Ed25519' }, false, ['sign']);
    default:
      return undefined;
  }
}
