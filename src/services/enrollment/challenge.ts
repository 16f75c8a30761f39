/**
 * `POST /enroll/challenge` (spec: Enrollment challenge request/response): before enrolling, a client that holds an
 * enrollment JWT asks the controller to sign a nonce of its choosing with the key the JWT names (`keyId` = the
 * JWT's `kid`, an entry of the enrollment JWKS). A controller that can answer holds that private key, so the client
 * knows it is enrolling with the controller that issued its JWT, not with whoever answers at the JWT's address.
 *
 * The answer: `kid`; `algorithm`, the JWS `alg` of the key (ES256, ES384, ES512, RS256 or EdDSA); `signature`,
 * base64url of the signature over the nonce's UTF-8 text made as a JWS signature is (RFC 7515 section 5.1; ECDSA as
 * R || S), so a JOSE library verifies it with the JWKS key; `caPool`, the controller's CA bundle (PEM) that the
 * client should trust for the enrollment itself. The reference controller leaves this operation unimplemented.
 */
import { ApiError } from '../../errors/api-error.js';
import type { EnrollmentJwtSigner } from './enrollment-jwt.js';

export interface NonceSignature {
  algorithm: string;
  caPool: string;
  kid: string;
  signature: string;
}

export interface EnrollmentChallenge {
  /** Signs `nonce` (a UUID, checked by the route) with the key `keyId`, if this controller holds it. */
  answer(input: { keyId: string; nonce: string }): Promise<NonceSignature>;
}

export function createEnrollmentChallenge(deps: { signer: EnrollmentJwtSigner | undefined; caPems: readonly string[] }): EnrollmentChallenge {
  const caPool = deps.caPems.join('');
  return {
    async answer({ keyId, nonce }) {
      const { signer } = deps;
      if (!signer) throw new ApiError('NOT_FOUND', { message: 'Enrollment is not enabled: the controller configuration has no edge section' });
      // Not a secret: kids are public (the JWKS lists them), so a plain comparison is fine.
      if (keyId !== signer.kid) {
        throw new ApiError('INVALID_ENROLLMENT_KEY', {
          message: `This controller signs with key ${signer.kid}; it does not hold key '${keyId}'`,
          cause: { field: 'keyId', reason: 'is not the key this controller signs enrollment JWTs with', value: keyId },
        });
      }
      const { algorithm, kid, signature } = await signer.signBytes(Buffer.from(nonce, 'utf8'));
      return { algorithm, caPool, kid, signature: signature.toString('base64url') };
    },
  };
}
