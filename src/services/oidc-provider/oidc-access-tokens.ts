/**
 * Access tokens as API credentials (spec: Credential forms; Errors, rules 2 and 3). Signature checks are cached per
 * token string in a bounded LRU until the token's `exp`; the session's revocation and the identity are checked on
 * every request, through the store or through the authentication cache that the change feed keeps current (decision
 * 0035), so ending a session takes effect at once here and within the feed's bound on every controller.
 */
import type { Identity } from '../../domain/identity.js';
import type { OidcSession } from '../../domain/oidc.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import type { OidcRepository } from '../../persistence/repositories/oidc.js';
import type { Clock } from '../../shared/clock.js';
import { createLru } from '../../shared/lru.js';
import type { MemoryLookup } from '../authentication/auth-lookups.js';
import { createPrincipalLoader, judgePrincipal } from '../authentication/principal.js';
import { isAccessTokenClaims, TokenRejected, type AccessTokenClaims, type OidcTokenSigner } from './oidc-tokens.js';

export interface VerifiedAccessToken {
  claims: AccessTokenClaims;
  session: OidcSession;
  identity: Identity;
  expiresAt: Date;
}

export interface AccessTokenVerifier {
  /** The caller behind an access token; throws TokenRejected (`expired` or `invalid`). */
  verify(token: string): Promise<VerifiedAccessToken>;
  /**
   * The caller at once when the token's checked claims, its session and its identity are all kept in memory and
   * accept it; else undefined, and `verify` decides (a refusal is always `verify`'s, with its reason).
   */
  verifyFromMemory(token: string): VerifiedAccessToken | undefined;
}

const DEFAULT_CACHE_SIZE = 10_000;

export function createAccessTokenVerifier(deps: {
  tokens: OidcTokenSigner;
  /** The sessions and identities to check: the store, or the authentication cache for API requests (auth-lookups.ts). */
  oidc: Pick<OidcRepository, 'findSession'> & MemoryLookup<OidcSession>;
  identities: Pick<IdentityRepository, 'findById'> & MemoryLookup<Identity>;
  clock: Clock;
  cacheSize?: number;
}): AccessTokenVerifier {
  const { tokens, oidc, identities, clock } = deps;
  const cache = createLru<string, AccessTokenClaims>(deps.cacheSize ?? DEFAULT_CACHE_SIZE);
  const principals = createPrincipalLoader({ identities, clock });

  async function claimsOf(token: string, now: Date): Promise<AccessTokenClaims> {
    const cached = cache.get(token);
    if (cached) {
      if (cached.exp * 1000 > now.getTime()) return cached;
      cache.delete(token);
      throw new TokenRejected('expired', 'token expired');
    }
    const claims = await tokens.verify(token, now);
    // An ID token (or any other token we signed) is not an API credential (spec: OIDC tokens).
    if (!isAccessTokenClaims(claims)) throw new TokenRejected('invalid', 'token is not an access token');
    cache.set(token, claims);
    return claims;
  }

  const factsOf = (session: OidcSession | undefined, claims: AccessTokenClaims) =>
    session ? { revoked: session.revokedAt !== null, ownedByIdentity: session.identityId === claims.sub } : null;
  // The decision refuses a session that does not exist, so an accepted token has one.
  const verified = (claims: AccessTokenClaims, session: OidcSession | undefined, identity: Identity): VerifiedAccessToken => ({
    claims,
    session: session as OidcSession,
    identity,
    expiresAt: new Date(claims.exp * 1000),
  });

  return {
    async verify(token) {
      const now = clock.now();
      const claims = await claimsOf(token, now);
      const session = await oidc.findSession(claims.z_asid);
      const principal = await principals.load(claims.sub, { session: factsOf(session, claims), now });
      // Realm svc-oidc, rule 3: a disabled identity says so; any other refusal is just an invalid token.
      if (!principal.ok) throw new TokenRejected('invalid', principal.reason === 'disabled' ? principal.description : 'token is invalid');
      return verified(claims, session, principal.identity);
    },

    verifyFromMemory(token) {
      const now = clock.now();
      const claims = cache.get(token);
      if (claims === undefined || claims.exp * 1000 <= now.getTime()) return undefined;
      const session = oidc.peek(claims.z_asid);
      const identity = session && identities.peek(claims.sub);
      if (identity === undefined) return undefined;
      const principal = judgePrincipal(identity, factsOf(session, claims), now);
      return principal.ok ? verified(claims, session, principal.identity) : undefined;
    },
  };
}
