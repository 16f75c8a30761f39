/**
 * The authorization_code grant (RFC 6749 §4.1.3, PKCE per RFC 7636 §4.6): a one-time code, bound to the client,
 * the redirect URI and the code challenge of its authorization request, is exchanged for the session's tokens.
 * The code is the sealed grant itself (decision 0046): it is checked without the store, and redeemed by storing the
 * session it opens, once.
 */
import { createHash } from 'node:crypto';
import { secretsEqual } from '../../../crypto/secrets.js';
import { scopeList, type OidcSession } from '../../../domain/oidc.js';
import { OAuthError } from '../../../errors/oauth-error.js';
import type { AuthorizationCode } from '../oidc-codes.js';
import type { Params } from '../oidc-provider.js';
import type { TokenGrantDeps, TokenGrantHandler } from './grant.js';

/** Refused token requests after which a code is no longer accepted, even with the right verifier. */
const MAX_CODE_REFUSALS = 3;
// RFC 7636 §4.1: the verifier's alphabet and length.
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** Builds the authorization_code grant. @example const exchange = createAuthorizationCodeGrant(deps); await exchange(params); */
export function createAuthorizationCodeGrant({ oidc, codes, clock, tokenSet, newRefreshToken }: TokenGrantDeps): TokenGrantHandler {
  /** Why a request may not have the code's tokens, or undefined when it may (RFC 6749 §4.1.3, RFC 7636 §4.6). */
  function refusalOf(params: Params, code: AuthorizationCode): OAuthError | undefined {
    // RFC 6749 §4.1.3: the same client and the identical redirect_uri as in the authorization request.
    if (params.client_id !== code.clientId) return new OAuthError('invalid_grant', 'the code was issued to another client');
    if (params.redirect_uri !== code.redirectUri) return new OAuthError('invalid_grant', 'redirect_uri differs from the authorization request');
    // RFC 7636 §4.6: BASE64URL(SHA256(code_verifier)) must equal the code challenge.
    const verifier = params.code_verifier;
    if (!verifier || !VERIFIER.test(verifier)) return new OAuthError('invalid_grant', 'code_verifier is missing or malformed');
    const challenge = createHash('sha256').update(verifier, 'ascii').digest('base64url');
    if (!secretsEqual(challenge, code.codeChallenge)) return new OAuthError('invalid_grant', 'code_verifier does not match the code challenge');
    return undefined;
  }

  const exhausted = () =>
    new OAuthError('invalid_grant', `the code was refused ${MAX_CODE_REFUSALS} times and is no longer valid; start again at the authorization endpoint`);

  return async function authorizationCode(params) {
    const { code: value, redirect_uri: redirectUri } = params;
    if (!value || !redirectUri) throw new OAuthError('invalid_request', 'code and redirect_uri are required');
    const code = codes.open(value);
    if (!code) throw new OAuthError('invalid_grant', 'the code is invalid');
    const now = clock.now();
    if (code.expiresAt.getTime() <= now.getTime()) throw new OAuthError('invalid_grant', 'the code has expired');
    // Each refusal is counted, so a code dies after a few wrong verifiers or redirect URIs, even sent at once
    // (OAuth 2.0 Security BCP, RFC 9700 §2.1.1: limit what a stolen code is worth).
    const refusal = refusalOf(params, code);
    if (refusal) throw (await oidc.countCodeRefusal(code.sessionId, code.expiresAt)) > MAX_CODE_REFUSALS ? exhausted() : refusal;
    const session: OidcSession = {
      id: code.sessionId,
      identityId: code.identityId,
      clientId: code.clientId,
      issuer: code.issuer,
      scope: code.scope,
      amr: [...code.amr],
      authTime: code.authTime,
      configTypes: [...code.configTypes],
      authenticatorId: code.authenticatorId,
      ipAddress: code.ipAddress,
      caId: code.caId,
      revokedAt: null,
      createdAt: now,
    };
    // The session and its first refresh token are stored together, or neither (decision 0020); tokens are signed after.
    const refresh = scopeList(session.scope).includes('offline_access') ? newRefreshToken(session, now) : undefined;
    const outcome = await oidc.redeemCode(session, refresh && { record: refresh.record, hash: refresh.hash }, MAX_CODE_REFUSALS);
    if (outcome === 'exhausted') throw exhausted();
    if (outcome === 'no-identity') throw new OAuthError('invalid_grant', 'the identity may no longer log in');
    if (outcome === 'spent') {
      // RFC 6749 §4.1.2: a code used twice is refused and the tokens issued with it SHOULD be revoked. Only the holder
      // of the verifier gets here, so a stolen code without it cannot end the session of the client it was meant for.
      await oidc.revokeSession(session.id, now);
      throw new OAuthError('invalid_grant', 'the code has already been used; the tokens issued with it are revoked');
    }
    return tokenSet(session, code.nonce, refresh?.value);
  };
}
