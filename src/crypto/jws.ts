/**
 * Compact JWS signing (RFC 7515 section 7.1) with node:crypto directly: the controller signs every access, ID and
 * session token on the request path, and jose signs through WebCrypto, which costs about twice as much per ES256
 * signature on Node 20 (toolchain notes). An ES256 or Ed25519 signature is computed on the calling thread (26 µs for
 * ES256): decision 0051 handed it to libuv's thread pool, but each hand-over wakes a pool thread that, on two cores,
 * preempts the event loop or the store, and with the store's writes off the event loop (decision 0053) signing in
 * place answered 8-15% more refresh grants on PostgreSQL and no fewer on SQLite or in PKCE logins. The slower keys
 * (RSA, P-384, P-521: hundreds of µs a signature) still sign on the pool. Verification stays with jose, which checks
 * every header and claim rule.
 *
 * @example
 * const sign = compactSigner(serverKey, 'ES256');
 * const jwt = await sign({ alg: 'ES256', kid, typ: 'JWT' }, { sub: 'id', exp: 1_900_000_000 });
 */
import { KeyObject, sign as signBytes, constants, webcrypto } from 'node:crypto';

/** How each JWS algorithm the controller's keys may have is computed by node:crypto (RFC 7518 section 3.1). */
const ALGORITHMS: Record<string, { hash: string | null; options?: { dsaEncoding?: 'ieee-p1363'; padding?: number; saltLength?: number }; inPlace?: true }> = {
  // RFC 7518 section 3.4: an ECDSA signature is R and S concatenated, not DER.
  ES256: { hash: 'sha256', options: { dsaEncoding: 'ieee-p1363' }, inPlace: true },
  ES384: { hash: 'sha384', options: { dsaEncoding: 'ieee-p1363' } },
  ES512: { hash: 'sha512', options: { dsaEncoding: 'ieee-p1363' } },
  RS256: { hash: 'sha256' },
  RS384: { hash: 'sha384' },
  RS512: { hash: 'sha512' },
  PS256: { hash: 'sha256', options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } },
  // RFC 8037 section 3.1: Ed25519 signs the message itself.
  EdDSA: { hash: null, inPlace: true },
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
  return async (header, claims) => {
    if (header.alg !== alg) throw new Error(`the header's alg ${header.alg} is not the key's ${alg}`);
    const input = Buffer.from(`${part(header)}.${part(claims)}`);
    const signature = algorithm.inPlace ? signBytes(algorithm.hash, input, signingKey) : await signOnThreadPool(algorithm.hash, input, signingKey);
    return `${input.toString()}.${signature.toString('base64url')}`;
  };
}

/** The signature computed on libuv's thread pool: for the keys whose signatures cost the event loop too much (RSA, P-384, P-521). */
function signOnThreadPool(hash: string | null, input: Buffer, key: Parameters<typeof signBytes>[2]): Promise<Buffer> {
  return new Promise((resolve, reject) => signBytes(hash, input, key, (error, signature) => (error ? reject(error) : resolve(signature))));
}
