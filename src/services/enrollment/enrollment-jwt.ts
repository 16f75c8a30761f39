/**
 * Enrollment JWTs and the key set that verifies them. An enrollment JWT tells an enrolling client where to enroll
 * (`iss`), how (`em`) and with which one-time token (`jti`); it is signed with the key of the controller's API
 * server certificate, so a client that trusts the server certificate can also trust the JWT (reference facts §9).
 */
import { X509Certificate } from 'node:crypto';
import type { JWK } from 'jose';
import { canonicalSignature, compactSigner } from '../../crypto/jws.js';
import type { Enrollment } from '../../domain/enrollment.js';
import { certificateFingerprint, type LoadedIdentity } from '../../pki/index.js';
import { webcrypto } from '../../pki/x509.js';
import { newUuid } from '../../shared/random.js';

/** The `aud` of every enrollment JWT (the reference's `openziti-enroller`, renamed). */
export const ENROLLMENT_AUDIENCE = 'svc-enroller';

/** A JSON Web Key Set (RFC 7517 section 5). */
export interface Jwks {
  keys: JWK[];
}

export interface EnrollmentJwtSigner {
  /** `https://<edge.api.address>`: the `iss` claim, and where the client enrolls. */
  readonly issuer: string;
  /**
   * Signs the JWT of an enrollment: claims em, iss, sub (the enrolling identity's or edge router's id), jti (token),
   * aud, iat, exp (= expiresAt). Edge routers enroll with method `erott` (reference facts §9).
   */
  sign(enrollment: Pick<Enrollment, 'identityId' | 'token' | 'expiresAt'> & { method: Enrollment['method'] | 'erott' }, now: Date): Promise<string>;
  /** The public key set of the current key only (the served `GET /enroll/jwks` adds retired keys: enrollment-keys.ts). */
  jwks(): Jwks;
  /** The `kid` of the current key, and its public JWK. */
  readonly kid: string;
  readonly publicJwk: JWK;
  /**
   * The network JWT of `GET /network-jwts` (reference facts §2): em = network, iss = sub = the issuer with a trailing
   * slash, a new jti, no exp; a client reads the controller's address from it.
   */
  signNetwork(now: Date): Promise<string>;
  /**
   * Signs `data` with the current key as JWS would (RFC 7515 section 5.1: ECDSA signatures as R || S, RFC 7518
   * section 3.4): the answer of `POST /enroll/challenge`.
   */
  signBytes(data: Uint8Array): Promise<{ algorithm: string; kid: string; signature: Buffer }>;
}

/** The JWS algorithm (RFC 7518 section 3.1) for a WebCrypto signing key, by key type and curve. */
function jwsAlgorithm(key: LoadedIdentity['serverKey']): string {
  const algorithm = key.algorithm as { name: string; namedCurve?: string };
  if (algorithm.name === 'ECDSA') {
    const byCurve: Record<string, string> = { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' };
    const alg = byCurve[algorithm.namedCurve ?? ''];
    if (alg) return alg;
  }
  if (algorithm.name === 'RSASSA-PKCS1-v1_5') return 'RS256';
  if (algorithm.name === 'Ed25519') return 'EdDSA';
  throw new Error(`the server key (${algorithm.name} ${algorithm.namedCurve ?? ''}) cannot sign enrollment JWTs`);
}

/** The controller's JWS signing key: the server certificate's key, its algorithm, `kid` and public JWK. */
export interface ServerSigningKey {
  readonly key: LoadedIdentity['serverKey'];
  readonly alg: string;
  /** Lowercase hex SHA-1 of the server certificate's DER (reference facts §6, Signing). */
  readonly kid: string;
  /** The public JWK with kid, alg and use = sig (RFC 7517 section 4). */
  readonly publicJwk: JWK;
}

/** The signing key of the server certificate, shared by enrollment JWTs and OIDC tokens. */
export function serverSigningKey(identity: Pick<LoadedIdentity, 'serverLeaf' | 'serverKey'>): ServerSigningKey {
  const leafPem = identity.serverLeaf.toString('pem');
  const kid = certificateFingerprint(leafPem);
  const alg = jwsAlgorithm(identity.serverKey);
  // The signing key is not extractable; the public half comes from the certificate instead (RFC 7517 section 4:
  // only public members, plus kid, alg and use = sig).
  const publicJwk = new X509Certificate(leafPem).publicKey.export({ format: 'jwk' }) as JWK;
  return { key: identity.serverKey, alg, kid, publicJwk: { ...publicJwk, kid, alg, use: 'sig' } };
}

/**
 * A signer over the controller's server certificate and key. The JWS header `kid` is the SHA-1 hex fingerprint of
 * the server certificate (as the reference controller names it), which is also the `kid` of the one JWKS entry.
 *
 * @example
 * const signer = createEnrollmentJwtSigner({ identity, issuer: 'https://ctrl.example.com:1280' });
 * const jwt = await signer.sign({ method: 'ott', identityId, token, expiresAt }, clock.now());
 */
export function createEnrollmentJwtSigner(options: { identity: Pick<LoadedIdentity, 'serverLeaf' | 'serverKey'>; issuer: string }): EnrollmentJwtSigner {
  const { identity, issuer } = options;
  const { alg, kid, publicJwk } = serverSigningKey(identity);
  const keys: JWK[] = [publicJwk];
  // The signer every token of the controller goes through, so that these too carry only low-S signatures (decision 0060).
  const signJwt = compactSigner(identity.serverKey, alg);
  const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

  return {
    issuer,
    async sign(enrollment, now) {
      return signJwt(
        { alg, kid, typ: 'JWT' },
        { em: enrollment.method, iss: issuer, sub: enrollment.identityId, jti: enrollment.token, aud: ENROLLMENT_AUDIENCE, iat: seconds(now), exp: seconds(enrollment.expiresAt) },
      );
    },
    jwks: () => ({ keys: keys.map((key) => ({ ...key })) }),
    kid,
    publicJwk,
    async signNetwork(now) {
      const iss = `${issuer}/`;
      return signJwt({ alg, kid, typ: 'JWT' }, { em: 'network', iss, sub: iss, jti: newUuid(), aud: ENROLLMENT_AUDIENCE, iat: seconds(now) });
    },
    async signBytes(data) {
      const algorithm = identity.serverKey.algorithm as { name: string };
      // ECDSA takes its hash with each call; RSA and Ed25519 carry theirs in the imported key.
      const params = algorithm.name === 'ECDSA' ? { name: 'ECDSA', hash: `SHA-${alg.slice(2)}` } : { name: algorithm.name };
      const signature = canonicalSignature(alg, Buffer.from(await webcrypto.subtle.sign(params, identity.serverKey, data)));
      return { algorithm: alg, kid, signature };
    },
  };
}
