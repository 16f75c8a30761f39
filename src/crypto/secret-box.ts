/**
 * Encryption of secrets the controller must read back (TOTP seeds, recovery codes), so that a copy of the database
 * alone reveals none of them. AES-256-GCM with a fresh 96-bit nonce per seal; the `context` (e.g. the owning
 * identity's id and the purpose) is bound as additional data, so a sealed value moved to another row fails to open.
 *
 * Sealed form: `v1.<keyId>.<nonce>.<ciphertext+tag>` (base64url parts). `keyId` names the key, so a value sealed
 * under a key this controller does not have is reported as such rather than as corruption.
 */
import { createCipheriv, createDecipheriv, createHash, createPrivateKey, hkdfSync, randomBytes } from 'node:crypto';

export interface SecretBox {
  /** The short id of the key, as written into sealed values. */
  readonly keyId: string;
  seal(plaintext: string, context: string): string;
  /** Throws when the value was sealed under another key, for another context, or was altered. */
  open(sealed: string, context: string): string;
}

const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export function createSecretBox(key: Uint8Array): SecretBox {
  if (key.length !== KEY_BYTES) throw new Error(`a secrets key must be ${KEY_BYTES} bytes, got ${key.length}`);
  const keyId = createHash('sha256').update(key).digest('hex').slice(0, 12);
  return {
    keyId,
    seal(plaintext, context) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return ['v1', keyId, nonce.toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed, context) {
      const [version, sealedKeyId, nonce, body] = sealed.split('.');
      if (version !== 'v1' || !sealedKeyId || !nonce || body === undefined) throw new Error('the sealed value is malformed');
      if (sealedKeyId !== keyId) {
        throw new Error(`the value was sealed with secrets key ${sealedKeyId}, but this controller's key is ${keyId} (see edge.totp.encryptionKeyFile)`);
      }
      const bytes = Buffer.from(body, 'base64url');
      if (bytes.length < TAG_BYTES) throw new Error('the sealed value is malformed');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * A secrets key derived (HKDF-SHA256) from a private key, for controllers whose config names no key file: stable
 * as long as that private key is, and never stored anywhere.
 */
export function deriveSecretsKey(privateKeyPem: string): Buffer {
  const der = createPrivateKey(privateKeyPem).export({ format: 'der', type: 'pkcs8' });
  return Buffer.from(hkdfSync('sha256', der, 'svc', 'svc secrets at rest v1', KEY_BYTES));
}

/** Reads a key file's text: 32 bytes as base64 or hex. Throws naming what is wrong. */
export function parseSecretsKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`must hold ${KEY_BYTES} random bytes as base64 or hex (found ${key.length} bytes)`);
  return key;
}

/** A new key file's text: 32 random bytes, base64. */
export function newSecretsKeyText(): string {
  return `${randomBytes(KEY_BYTES).toString('base64')}\n`;
}
