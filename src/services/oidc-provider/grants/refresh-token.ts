/**
 * The refresh_token grant with rotation (RFC 6749 §6): every use returns a new refresh token; a rotated one
 * presented again revokes the session (RFC 9700 §4.14.2), except a duplicate within the grace window (decision 0012).
 */
import { hashToken } from '../../../crypto/secrets.js';
import type { OidcRefreshToken } from '../../../domain/oidc.js';
import { OAuthError } from '../../../errors/oauth-error.js';
import type { TokenGrantDeps, TokenGrantHandler } from './grant.js';

/** How long after a rotation the same refresh token gets the same successor instead of revoking (decision 0012). */
export const REFRESH_REUSE_GRACE_MS = 2_000;

const scopes = (scope: string) => scope.split(' ').filter(Boolean);
// The successor is sealed for its predecessor only, so a sealed value cannot be replayed against another token.
const successorContext = (token: OidcRefreshToken) => `oidc-refresh-successor:${token.id}`;

/** Builds the refresh_token grant. @example const refresh = createRefreshTokenGrant(deps); await refresh(params); */
export function createRefreshTokenGrant({ oidc, clock, secrets, tokenSet, newRefreshToken }: TokenGrantDeps): TokenGrantHandler {
  /**
   * The successor of a token rotated less than the grace window ago, if that successor is still unused (decision
   * 0012): a duplicate of the same refresh request (two tabs, a retried request) gets the same successor instead of
   * revoking the family. Anything else is reuse.
   */
  async function graceSuccessor(stored: OidcRefreshToken, now: Date): Promise<string | undefined> {
    if (!stored.rotatedAt || !stored.successorSealed || now.getTime() - stored.rotatedAt.getTime() > REFRESH_REUSE_GRACE_MS) return undefined;
    let successor: string;
    try {
      successor = secrets.open(stored.successorSealed, successorContext(stored));
    } catch {
      return undefined;
    }
    const next = await oidc.findRefreshToken(hashToken(successor));
    return next?.status === 'active' ? successor : undefined;
  }

  return async function refreshToken(params) {
    if (!params.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required');
    const presentedHash = hashToken(params.refresh_token);
    const found = await oidc.findRefreshTokenWithSession(presentedHash);
    if (!found) throw new OAuthError('invalid_grant', 'the refresh token is invalid');
    const { token: stored, session } = found;
    const now = clock.now();
    const reuse = async () => {
      // OAuth 2.0 Security BCP (RFC 9700 §4.14.2): a rotated refresh token presented again means it leaked; the
      // whole family (the session) is revoked.
      await oidc.revokeSession(session.id, now);
      return new OAuthError('invalid_grant', 'the refresh token has already been used; the session is revoked');
    };
    if (stored.status === 'rotated') {
      const successor = await graceSuccessor(stored, now);
      if (successor === undefined) throw await reuse();
      return tokenSet(session, null, successor);
    }
    if (stored.status === 'revoked' || session.revokedAt !== null) throw new OAuthError('invalid_grant', 'the refresh token has been revoked');
    if (stored.expiresAt.getTime() <= now.getTime()) throw new OAuthError('invalid_grant', 'the refresh token has expired');
    if (params.client_id !== session.clientId) throw new OAuthError('invalid_grant', 'the refresh token was issued to another client');
    // RFC 6749 §6: a narrower scope may be asked for, never a wider one; the session keeps its original scope.
    if (params.scope !== undefined && !scopes(params.scope).every((s) => scopes(session.scope).includes(s))) {
      throw new OAuthError('invalid_scope', 'the scope exceeds the one originally granted');
    }
    const next = newRefreshToken(session, now);
    const sealed = secrets.seal(next.value, successorContext(stored));
    if (!(await oidc.rotateRefreshToken(presentedHash, now, { token: next.record, tokenHash: next.hash, sealed }))) {
      // Another request rotated it first: the same request twice within the grace window gets that one's successor.
      const rotated = await oidc.findRefreshToken(presentedHash);
      const successor = rotated ? await graceSuccessor(rotated, now) : undefined;
      if (successor === undefined) throw await reuse();
      return tokenSet(session, null, successor);
    }
    return tokenSet(session, null, next.value);
  };
}
