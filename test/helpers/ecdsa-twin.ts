/**
 * The other form of an ECDSA signature: (r, s) and (r, n − s) both verify for the same message and key, so a JWS
 * whose S is swapped for n − S is a second valid token string for the same claims. Tests build it to check that only
 * the low-S form is issued and accepted (decision 0060). The curve orders are written out here rather than imported,
 * so that a wrong constant in src/ cannot hide itself.
 */
import { decodeProtectedHeader } from 'jose';

/** Curve order n by JWS algorithm (SEC 2 v2 §2.4.2, §2.5.1, §2.6.1), and the byte width of R and of S. */
const ORDERS: Record<string, { n: bigint; width: number }> = {
  ES256: { n: 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n, width: 32 },
  ES384: { n: 0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n, width: 48 },
  ES512: {
    n: 0x01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409n,
    width: 66,
  },
};

const orderOf = (alg: string) => {
  const order = ORDERS[alg];
  if (!order) throw new Error(`not an ECDSA algorithm: ${alg}`);
  return order;
};

/** S of an R || S signature, as a number. */
export function sOf(alg: string, signature: Buffer): bigint {
  return BigInt(`0x${signature.subarray(orderOf(alg).width).toString('hex')}`);
}

/** Whether S of the signature is at most n / 2. */
export function isLowS(alg: string, signature: Buffer): boolean {
  return sOf(alg, signature) <= orderOf(alg).n / 2n;
}

/** `token` (a compact JWS signed with ES256, ES384 or ES512) with its S replaced by n − S. */
export function ecdsaTwin(token: string): string {
  const { alg } = decodeProtectedHeader(token);
  const { n, width } = orderOf(String(alg));
  const [header, payload, encoded] = token.split('.') as [string, string, string];
  const signature = Buffer.from(encoded, 'base64url');
  const twinS = Buffer.from((n - sOf(String(alg), signature)).toString(16).padStart(width * 2, '0'), 'hex');
  return `${header}.${payload}.${Buffer.concat([signature.subarray(0, width), twinS]).toString('base64url')}`;
}

/** The S half of a compact JWS's signature is low (the form the controller issues). */
export function tokenHasLowS(token: string): boolean {
  const { alg } = decodeProtectedHeader(token);
  return isLowS(String(alg), Buffer.from(token.split('.')[2] ?? '', 'base64url'));
}
