/**
 * Compact JWS signing (RFC 7515 section 7.1) with node:crypto directly: the controller signs every access, ID and
 * session token on the request path, and jose signs through WebCrypto, which costs about twice as much per ES256
 * signature on Node 20 (toolchain notes). The signature itself is computed on libuv's thread pool (node:crypto's
 * callback form), so the requests that sign (refresh grants above all) use the machine's other cores: the event loop
 * spends about 7 µs handing it over instead of 26-40 µs computing it, though under load the woken pool thread can
 * preempt the event loop for a while (decision 0051). Verification stays with jose, which checks every header and
 * claim rule.
 *
 * @example
 * const sign = compactSigner(serverKey, 'ES256');
 * const jwt = await sign({ alg: 'ES256', kid, typ: 'JWT' }, { sub: 'id', exp: 1_900_000_000 });
 */
import { KeyObject, sign as signBytes, constants, webcrypto } from 'node:crypto';

/** How each JWS algorithm the controller's keys may have is computed by node:crypto (RFC 7518 section 3.1). */
const ALGORITHMS: Record<string, { hash: string | null; options?: { dsaEncoding?: 'ieee-p1363'; padding?: number; saltLength?: number } }> = {
  // RFC 7518 section 3.4: an ECDSA signature is R and S concatenated, not DER.
  ES256: { hash: 'sha256', options: { dsaEncoding: 'ieee-p1363' } },
  ES384: { hash: 'sha384', options: { dsaEncoding: 'ieee-p1363' } },
  ES512: { hash: 'sha512', options: { dsaEncoding: 'ieee-p1363' } },
  RS256: { hash: 'sha256' },
  RS384: { hash: 'sha384' },
  RS512: { hash: 'sha512' },
  PS256: { hash: 'sha256', options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } },
  // RFC 8037 section 3.1: Ed25519 signs the message itself.
  EdDSA: { hash: null },
};

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A function signing a header and claims with `key` under `alg` (one of ALGORITHMS), as a compact JWS. */
export function compactSigner(
  key: webcrypto.CryptoKey | KeyObject,
  alg: string,
): (header: { alg: string } & Record<string, unknown>, claims: Record<string, unknown>) => Promise<string> {
  const algorithm = ALGORITHMS[alg];
  if (!algorithm) throw new Error(`no JWS signer for algorithm ${alg}`);
  const keyObject = key instanceof KeyObject ? key : KeyObject.from(key);
  const signingKey = { key: keyObject, ...algorithm.options };
  return (header, claims) =>
    new Promise((resolve, reject) => {
      if (header.alg !== alg) throw new Error(`the header's alg ${header.alg} is not the key's ${alg}`);
      const input = `${part(header)}.${part(claims)}`;
      signBytes(algorithm.hash, Buffer.from(input), signingKey, (error, signature) => {
        if (error) reject(error);
        else resolve(`${input}.${signature.toString('base64url')}`);
      });
    });
}
