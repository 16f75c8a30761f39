/**
 * End-to-end encryption between two SDK ends of a connection, in the public C SDK's libsodium mode
 * (reference/edge-router-protocol-facts.md §3 "End-to-end encryption", §5C): each end makes a `crypto_kx` key pair
 * and sends its public key (header 1003); the dialer derives the *client* session keys, the hoster the *server*
 * ones. Each direction is one `crypto_secretstream_xchacha20poly1305` stream keyed by the sender's tx key: the
 * sender's first Data body is the stream's 24-byte header, then every Data body is one push tagged TAG_MESSAGE
 * (17 bytes longer than its plaintext). The router relays bodies one to one, so a Data body is a whole ciphertext.
 */
import sodium from 'libsodium-wrappers';
import { SdkError } from './errors.js';

/** libsodium loads its WebAssembly once; every use awaits this. */
export const sodiumReady = sodium.ready;

export interface KeyPair {
  publicKey: Uint8Array;
  privateKey: Uint8Array;
}

export function newKeyPair(): KeyPair {
  const { publicKey, privateKey } = sodium.crypto_kx_keypair();
  return { publicKey, privateKey };
}

/** One end's half of the encrypted conversation, once the peer's public key is known. */
export interface E2eeSession {
  /** The 24-byte header this end sends as its first Data body. */
  readonly header: Buffer;
  /** Encrypts one Data body. */
  seal(plain: Buffer): Buffer;
  /**
   * Takes one Data body from the peer: the first must be its 24-byte header (answers undefined); each later one is a
   * ciphertext, answered with its plaintext. A body that does not authenticate throws CRYPTO_FAILED.
   */
  open(body: Buffer): Buffer | undefined;
}

/** Keys for the `role` end (`client` = dialer, `server` = hoster) from its key pair and the peer's public key. */
export function e2eeSession(role: 'client' | 'server', own: KeyPair, peerPublicKey: Uint8Array): E2eeSession {
  if (peerPublicKey.length !== sodium.crypto_kx_PUBLICKEYBYTES) {
    throw new SdkError('CRYPTO_FAILED', `the peer's public key is ${peerPublicKey.length} bytes, not ${sodium.crypto_kx_PUBLICKEYBYTES}`);
  }
  let keys: { sharedRx: Uint8Array; sharedTx: Uint8Array };
  try {
    keys =
      role === 'client'
        ? sodium.crypto_kx_client_session_keys(own.publicKey, own.privateKey, peerPublicKey)
        : sodium.crypto_kx_server_session_keys(own.publicKey, own.privateKey, peerPublicKey);
  } catch (error) {
    throw new SdkError('CRYPTO_FAILED', `the key exchange with the peer's public key failed: ${(error as Error).message}`);
  }
  const { state: push, header } = sodium.crypto_secretstream_xchacha20poly1305_init_push(keys.sharedTx);
  let pull: ReturnType<typeof sodium.crypto_secretstream_xchacha20poly1305_init_pull> | undefined;
  return {
    header: Buffer.from(header),
    seal: (plain) => Buffer.from(sodium.crypto_secretstream_xchacha20poly1305_push(push, plain, null, sodium.crypto_secretstream_xchacha20poly1305_TAG_MESSAGE)),
    open(body) {
      if (!pull) {
        if (body.length !== sodium.crypto_secretstream_xchacha20poly1305_HEADERBYTES) {
          throw new SdkError('CRYPTO_FAILED', `the peer's first data is ${body.length} bytes, not its ${sodium.crypto_secretstream_xchacha20poly1305_HEADERBYTES}-byte stream header`);
        }
        pull = sodium.crypto_secretstream_xchacha20poly1305_init_pull(body, keys.sharedRx);
        return undefined;
      }
      let result: { message: Uint8Array; tag: number } | false;
      try {
        result = sodium.crypto_secretstream_xchacha20poly1305_pull(pull, body, null);
      } catch {
        result = false;
      }
      if (!result) throw new SdkError('CRYPTO_FAILED', `a ${body.length}-byte message from the peer does not authenticate (tampered, reordered or not encrypted for this connection)`);
      return Buffer.from(result.message);
    },
  };
}
