/**
 * The refresh_token grant with rotation (RFC 6749 §6): every use returns a new refresh token; a rotated one
 * presented again revokes the session (RFC 9700 §4.14.2), except a duplicate within the grace window (decision 0012).
 */
import { hashToken } from '../../../crypto/secrets.js';
import { refreshRefusal, type OidcRefreshToken, type OidcSession } from '../../../domain/oidc.js';
import { OAuthError } from '../../../errors/oauth-error.js';
import type { TokenGrantDeps, TokenGrantHandler } from './grant.js';

/** How long after a rotation the same refresh token gets the same successor instead of revoking (decision 0012). */
export const REFRESH_REUSE_GRACE_MS = 2_000;

const scopes = (scope: string) => scope.split(' ').filter(Boolean);
// The successor is sealed for its predecessor only, so a sealed value cannot be replayed against another token. It is
// bound to the predecessor's hash, which the grant knows before it reads anything; successors sealed by an earlier
// release were bound to the predecessor's id, and are opened that way for as long as their grace window lasts.
const successorContext = (tokenHash: string) => `oidc-refresh-successor:${tokenHash}`;
const earlierSuccessorContext = (token: OidcRefreshToken) => `oidc-refresh-successor:${token.id}`;

/** Builds the refresh_token grant. @example const refresh = createRefreshTokenGrant(deps); await refresh(params); */
export function createRefreshTokenGrant({ oidc, clock, secrets, tokenSet, newRefreshSecret }: TokenGrantDeps): TokenGrantHandler {
  /**
   * The successor of a token rotated less than the grace window ago, if that successor is still unused (decision
   * 0012): a duplicate of the same refresh request (two tabs, a retried request) gets the same successor instead of
   * revoking the family. Anything else is reuse.
   */
  async function graceSuccessor(stored: OidcRefreshToken, tokenHash: string, now: Date): Promise<string | undefined> {
    if (!stored.rotatedAt || !stored.successorSealed || now.getTime() - stored.rotatedAt.getTime() > REFRESH_REUSE_GRACE_MS) return undefined;
    const successor = openSuccessor(stored.successorSealed, tokenHash, stored);
    if (successor === undefined) return undefined;
    const next = await oidc.findRefreshToken(hashToken(successor));
    return next?.status === 'active' ? successor : undefined;
  }

  function openSuccessor(sealed: string, tokenHash: string, stored: OidcRefreshToken): string | undefined {
    for (const context of [successorContext(tokenHash), earlierSuccessorContext(stored)]) {
      try {
        return secrets.open(sealed, context);
      } catch {
        // sealed for another context (or tampered with): try the next, then give up
      }
    }
    return undefined;
  }

  /**
   * What a token this request did not rotate is worth (refreshRefusal): a rotated one is a duplicate within the grace
   * window or reuse; the other refusals are errors. Undefined when there is none: the token may be rotated (it was
   * not tried yet, or another request rotated it a moment ago).
   */
  async function unrotated(found: { token: OidcRefreshToken; session: OidcSession }, tokenHash: string, clientId: string | undefined, now: Date) {
    const { token: stored, session } = found;
    switch (refreshRefusal(stored, session, now, clientId)) {
      case 'rotated': {
        const successor = await graceSuccessor(stored, tokenHash, now);
        if (successor === undefined) throw await reuse(session, now);
        return tokenSet(session, null, successor);
      }
      case 'revoked':
        throw new OAuthError('invalid_grant', 'the refresh token has been revoked');
      case 'expired':
        throw new OAuthError('invalid_grant', 'the refresh token has expired');
      case 'other-client':
        throw new OAuthError('invalid_grant', 'the refresh token was issued to another client');
      case undefined:
        return undefined;
    }
  }

  /**
   * OAuth 2.0 Security BCP (RFC 9700 §4.14.2): a rotated refresh token presented again means it leaked; the whole
   * family (the session) is revoked.
   */
  async function reuse(session: OidcSession, now: Date) {
    await oidc.revokeSession(session.id, now);
    return new OAuthError('invalid_grant', 'the refresh token has already been used; the session is revoked');
  }

  return async function refreshToken(params) {
    if (!params.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required');
    const presentedHash = hashToken(params.refresh_token);
    const now = clock.now();
    const invalid = () => new OAuthError('invalid_grant', 'the refresh token is invalid');
    if (params.scope !== undefined) {
      // RFC 6749 §6: a narrower scope may be asked for, never a wider one; the session keeps its original scope. It is
      // checked before the token is spent, so this (rare) request reads the token first.
      const found = await oidc.findRefreshTokenWithSession(presentedHash);
      if (!found) throw invalid();
      const settled = await unrotated(found, presentedHash, params.client_id, now);
      if (settled) return settled;
      if (!scopes(params.scope).every((s) => scopes(found.session.scope).includes(s))) {
        throw new OAuthError('invalid_scope', 'the scope exceeds the one originally granted');
      }
    }
    // Read and rotated together (one statement on PostgreSQL, decision 0052), the successor drawn beforehand.
    const next = newRefreshSecret(now);
    const sealed = secrets.seal(next.value, successorContext(presentedHash));
    const redeemed = await oidc.redeemRefreshToken(presentedHash, now, params.client_id, { ...next.record, tokenHash: next.hash, sealed });
    if (!redeemed) throw invalid();
    if (redeemed.rotated) return tokenSet(redeemed.session, null, next.value);
    const settled = await unrotated(redeemed, presentedHash, params.client_id, now);
    if (settled) return settled;
    // Another request rotated it first: the same request twice within the grace window gets that one's successor.
    const rotated = await oidc.findRefreshToken(presentedHash);
    const successor = rotated ? await graceSuccessor(rotated, presentedHash, now) : undefined;
    if (successor === undefined) throw await reuse(redeemed.session, now);
    return tokenSet(redeemed.session, null, successor);
  };
}
