/**
 * Enrollment JWTs and the key set that verifies them. An enrollment JWT tells an enrolling client where to enroll
 * (`iss`), how (`em`) and with which one-time token (`jti`); it is signed with the key of the controller's API
 * server certificate, so a client that trusts the server certificate can also trust the JWT (reference facts §9).
 */
import { X509Certificate } from 'node:crypto';
import { SignJWT, type JWK } from 'jose';
import type { Enrollment } from '../../domain/enrollment.js';
import { certificateFingerprint, type LoadedIdentity } from '../../pki/index.js';

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
  /** The public key set that verifies the JWTs, as served at `GET /enroll/jwks`. */
  jwks(): Jwks;
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

  return {
    issuer,
    async sign(enrollment, now) {
      return new SignJWT({ em: enrollment.method })
        .setProtectedHeader({ alg, kid, typ: 'JWT' })
        .setIssuer(issuer)
        .setSubject(enrollment.identityId)
        .setJti(enrollment.token)
        .setAudience(ENROLLMENT_AUDIENCE)
        .setIssuedAt(Math.floor(now.getTime() / 1000))
        .setExpirationTime(Math.floor(enrollment.expiresAt.getTime() / 1000))
        .sign(identity.serverKey);
    },
    jwks: () => ({ keys: keys.map((key) => ({ ...key })) }),
  };
}
