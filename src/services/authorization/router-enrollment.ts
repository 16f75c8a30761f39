/**
 * The one-time enrollment of an edge router (method `erott`, reference facts §9): a random token, of which only the
 * SHA-256 is stored, and a JWT naming the router (`sub`) and the token (`jti`), signed by the same signer and key as
 * identity enrollment JWTs, so routers verify it against the same key set (`GET /edge/client/v1/enroll/jwks`).
 */
import { hashToken } from '../../crypto/secrets.js';
import type { RouterEnrollment } from '../../domain/edge-router.js';
import { ApiError } from '../../errors/api-error.js';
import { newUuid } from '../../shared/random.js';
import type { EnrollmentJwtSigner } from '../enrollment/enrollment-jwt.js';

/** The enrollment method routers use (the reference's name). */
export const ROUTER_ENROLLMENT_METHOD = 'erott' as const;

export interface RouterEnrollmentIssuer {
  /** A new enrollment of router `routerId`, valid from `now` for the configured duration. */
  issue(routerId: string, now: Date): Promise<RouterEnrollment>;
}

/**
 * Issues router enrollments, or refuses with 400 INVALID_ENROLL_METHOD when the controller has no edge section (no
 * signer): a router that could never enroll is not created.
 */
export function routerEnrollmentIssuer(signer: EnrollmentJwtSigner | undefined, durationMs: number): RouterEnrollmentIssuer & { require(): void } {
  const require = (): EnrollmentJwtSigner => {
    if (signer) return signer;
    throw new ApiError('INVALID_ENROLL_METHOD', {
      message: 'Edge router enrollment is not enabled: the controller configuration has no edge section',
      cause: { field: 'method', value: ROUTER_ENROLLMENT_METHOD },
    });
  };
  return {
    require: () => void require(),
    async issue(routerId, now) {
      const jwt = require();
      const token = newUuid();
      const expiresAt = new Date(now.getTime() + durationMs);
      // The signer writes `em` from `method` and `sub` from `identityId`; its type names the identity methods only,
      // so the router method is passed through the same field (see the decision record).
      const signed = await jwt.sign({ method: ROUTER_ENROLLMENT_METHOD, identityId: routerId, token, expiresAt }, now);
      return { tokenHash: hashToken(token), jwt: signed, expiresAt };
    },
  };
}
