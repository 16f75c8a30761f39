/**
 * The enrollment key set as served (`GET /enroll/jwks`) and the network JWT (`GET /network-jwts`). The JWKS lists
 * every key that may have signed a live enrollment JWT: this controller's current key, and any other recorded key
 * (a retired server certificate's, another controller's on the same store) that is the `kid` of an enrollment JWT
 * that has not expired. A key whose last JWT expired is no longer listed (decision 0038).
 */
import { decodeProtectedHeader, type JWK } from 'jose';
import type { EnrollmentSigningKeyRepository } from '../../persistence/repositories/enrollment-signing-keys.js';
import type { Clock } from '../../shared/clock.js';
import { ApiError } from '../../errors/api-error.js';
import type { EnrollmentJwtSigner, Jwks } from './enrollment-jwt.js';

export interface EnrollmentKeySet {
  /** Records this controller's key, so it stays verifiable after it is retired. Called at start. */
  publish(): Promise<void>;
  /** The served key set (RFC 7517 section 5): the current key first. */
  jwks(): Promise<Jwks>;
  /** `[{name: 'default', token}]`: the network JWT (reference `listNetworkJWTs`). */
  networkJwts(): Promise<Array<{ name: string; token: string }>>;
}

/** The `kid` of a JWT's protected header, or undefined when it has none or is not a JWT. */
function kidOf(jwt: string): string | undefined {
  try {
    const { kid } = decodeProtectedHeader(jwt);
    return typeof kid === 'string' ? kid : undefined;
  } catch {
    return undefined;
  }
}

/** Without an edge section (no signer) every operation answers 404, as the other enroll operations do. */
export function createEnrollmentKeySet(deps: { signer: EnrollmentJwtSigner | undefined; keys: EnrollmentSigningKeyRepository; clock: Clock }): EnrollmentKeySet {
  const { signer, keys, clock } = deps;
  const required = (): EnrollmentJwtSigner => {
    if (signer) return signer;
    throw new ApiError('NOT_FOUND', { message: 'Enrollment is not enabled: the controller configuration has no edge section' });
  };
  return {
    async publish() {
      if (signer) await keys.publish(signer.kid, signer.publicJwk, clock.now());
    },
    async jwks() {
      const current = required();
      const liveKids = new Set((await keys.liveJwts(clock.now())).map(kidOf).filter((kid): kid is string => kid !== undefined));
      liveKids.delete(current.kid);
      const retired: JWK[] = await keys.find([...liveKids]);
      return { keys: [{ ...current.publicJwk }, ...retired] };
    },
    async networkJwts() {
      return [{ name: 'default', token: await required().signNetwork(clock.now()) }];
    },
  };
}
