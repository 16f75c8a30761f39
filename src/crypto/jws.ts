/**
 * Compact JWS signing (RFC 7515 section 7.1) with node:crypto directly: the controller signs every access, ID and
 * session token on the request path, and jose signs through WebCrypto, which costs about twice as much per ES256
 * signature on Node 20 (toolchain notes). An ES256 or Ed25519 signature is computed on the calling thread (26 µs for
 * ES256): decision 0051 handed it to libuv's thread pool, but each hand-over wakes a pool thread that, on two cores,
 * preempts the event loop or the store, and with the store's writes off the event loop (decision 0053) signing in
 * place answered 8-15% more refresh grants on PostgreSQL and no fewer on SQLite or in PKCE logins. The slower keys
 * (RSA, P-384, P-521: hundreds of µs a signature) still sign on the pool. Verification stays with jose, which checks
 * every header and claim rule; `isCanonicalSignature` adds the one rule it leaves out: an ECDSA signature (r, s) is
 * also valid as (r, n − s), so each signature is emitted, and accepted, only in its low-S form (decision 0060).
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
    return `${input.toString()}.${canonicalSignature(alg, signature).toString('base64url')}`;
  };
}

/** The signature computed on libuv's thread pool: for the keys whose signatures cost the event loop too much (RSA, P-384, P-521). */
function signOnThreadPool(hash: string | null, input: Buffer, key: Parameters<typeof signBytes>[2]): Promise<Buffer> {
  return new Promise((resolve, reject) => signBytes(hash, input, key, (error, signature) => (error ? reject(error) : resolve(signature))));
}

/**
 * The order n of each ECDSA curve the controller's keys may be on (SEC 2 version 2, sections 2.4.2, 2.5.1 and 2.6.1),
 * by JWS algorithm, with n / 2, the largest S of a low-S signature, as the fixed-width big-endian bytes a JWS carries.
 */
const CURVE_ORDERS: Record<string, { n: bigint; halfBytes: Buffer; width: number }> = Object.fromEntries(
  (
    [
      ['ES256', 32, 'ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551'],
      ['ES384', 48, 'ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973'],
      ['ES512', 66, '01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409'],
    ] as const
  ).map(([alg, width, hex]) => {
    const n = BigInt(`0x${hex}`);
    return [alg, { n, width, halfBytes: Buffer.from((n >> 1n).toString(16).padStart(width * 2, '0'), 'hex') }];
  }),
);

/** The S half of an R || S signature (RFC 7518 section 3.4), when `alg` is ECDSA and the length is right. */
function sHalf(alg: string, signature: Buffer): { s: Buffer; curve: (typeof CURVE_ORDERS)[string] } | undefined {
  const curve = CURVE_ORDERS[alg];
  if (!curve || signature.length !== curve.width * 2) return undefined;
  return { s: signature.subarray(curve.width), curve };
}

/**
 * `signature` (R || S, as JWS and WebCrypto's ECDSA give it) with S replaced by n − S when S > n / 2: the same
 * signature in its one canonical form. Any other algorithm's signature as it is.
 */
export function canonicalSignature(alg: string, signature: Buffer): Buffer {
  const half = sHalf(alg, signature);
  if (!half || Buffer.compare(half.s, half.curve.halfBytes) <= 0) return signature;
  const { curve } = half;
  const low = (curve.n - BigInt(`0x${half.s.toString('hex')}`)).toString(16).padStart(curve.width * 2, '0');
  return Buffer.concat([signature.subarray(0, curve.width), Buffer.from(low, 'hex')]);
}

/**
 * Whether the signature of compact JWS `token` is in the form the controller signs: for ES256, ES384 and ES512 an S
 * of at most n / 2 (a fixed-width byte compare, no arithmetic); for any other algorithm always (RSA signatures have
 * one form, and Node's Ed25519 verify already refuses an S of L or more, RFC 8032 section 5.1.7). A token of the
 * wrong shape passes here and is refused by the verifier.
 *
 * @example if (!isCanonicalSignature(token, 'ES256')) throw new TokenRejected('invalid', 'token is invalid');
 */
export function isCanonicalSignature(token: string, alg: string): boolean {
  const half = sHalf(alg, Buffer.from(token.slice(token.lastIndexOf('.') + 1), 'base64url'));
  return !half || Buffer.compare(half.s, half.curve.halfBytes) <= 0;
}
