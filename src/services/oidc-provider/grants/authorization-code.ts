/**
 * The authorization_code grant (RFC 6749 §4.1.3, PKCE per RFC 7636 §4.6): a one-time code, bound to the client,
 * the redirect URI and the code challenge of its authorization request, is exchanged for the session's tokens.
 */
import { createHash } from 'node:crypto';
import { hashToken, secretsEqual } from '../../../crypto/secrets.js';
import { scopeList, type OidcAuthRequest, type OidcSession } from '../../../domain/oidc.js';
import { OAuthError } from '../../../errors/oauth-error.js';
import type { Params } from '../oidc-provider.js';
import type { TokenGrantDeps, TokenGrantHandler } from './grant.js';

/** Token requests one authorization code may be used in, right or wrong. */
const MAX_CODE_ATTEMPTS = 3;
// RFC 7636 §4.1: the verifier's alphabet and length.
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** Builds the authorization_code grant. @example const exchange = createAuthorizationCodeGrant(deps); await exchange(params); */
export function createAuthorizationCodeGrant({ codeExchanges, clock, tokenSet, newRefreshToken }: TokenGrantDeps): TokenGrantHandler {
  /** Why a counted request may not have its tokens, or undefined when it may (RFC 6749 §4.1.3, RFC 7636 §4.6). */
  function refusalOf(params: Params, request: OidcAuthRequest, counted: boolean, now: Date): OAuthError | undefined {
    if (!request.codeExpiresAt || request.codeExpiresAt.getTime() <= now.getTime()) return new OAuthError('invalid_grant', 'the code has expired');
    if (!counted) {
      return new OAuthError('invalid_grant', `the code was used in ${MAX_CODE_ATTEMPTS} failed requests and is no longer valid; start again at the authorization endpoint`);
    }
    // RFC 6749 §4.1.3: the same client and the identical redirect_uri as in the authorization request.
    if (params.client_id !== request.clientId) return new OAuthError('invalid_grant', 'the code was issued to another client');
    if (params.redirect_uri !== request.redirectUri) return new OAuthError('invalid_grant', 'redirect_uri differs from the authorization request');
    // RFC 7636 §4.6: BASE64URL(SHA256(code_verifier)) must equal the stored code_challenge.
    const verifier = params.code_verifier;
    if (!verifier || !VERIFIER.test(verifier)) return new OAuthError('invalid_grant', 'code_verifier is missing or malformed');
    const challenge = createHash('sha256').update(verifier, 'ascii').digest('base64url');
    if (!secretsEqual(challenge, request.codeChallenge)) return new OAuthError('invalid_grant', 'code_verifier does not match the code challenge');
    return undefined;
  }

  return async function authorizationCode(params) {
    const { code, redirect_uri: redirectUri } = params;
    if (!code || !redirectUri) throw new OAuthError('invalid_request', 'code and redirect_uri are required');
    const codeHash = hashToken(code);
    const now = clock.now();
    // The attempt is counted before it is checked, so a code dies after a few wrong verifiers or redirect URIs, even
    // sent at once (OAuth 2.0 Security BCP, RFC 9700 §2.1.1: limit what a stolen code is worth); a refusal is
    // returned, not thrown, so that its count commits. An accepted code is redeemed, and its session and first refresh
    // token stored, atomically: a failure leaves the code unspent and nothing stored (decision 0020). On SQLite the
    // count and the exchange are one transaction, on PostgreSQL two statements (decision 0043). Tokens are signed after.
    const outcome = await codeExchanges(async ({ oidc }) => {
      // The count reads the request too; only a refused count reads it again, to say why.
      const counted = await oidc.countCodeAttempt(codeHash, MAX_CODE_ATTEMPTS);
      const request = counted ?? (await oidc.findAuthRequestByCodeHash(codeHash));
      if (!request) return { refusal: new OAuthError('invalid_grant', 'the code is invalid') };
      const usedTwice = async () => {
        // RFC 6749 §4.1.2: a code used twice is refused and the tokens issued with it SHOULD be revoked.
        await oidc.revokeSession(request.apiSessionId, now);
        return { refusal: new OAuthError('invalid_grant', 'the code has already been used; the tokens issued with it are revoked') };
      };
      if (request.status === 'tokens_issued') return usedTwice();
      const refusal = refusalOf(params, request, counted !== undefined, now);
      if (refusal) return { refusal };
      const session: OidcSession = {
        id: request.apiSessionId,
        identityId: request.identityId as string,
        clientId: request.clientId,
        issuer: request.issuer,
        scope: request.scope,
        amr: request.amr,
        authTime: request.authTime ?? now,
        configTypes: request.configTypes,
        authenticatorId: request.authenticatorId ?? null,
        ipAddress: request.ipAddress ?? null,
        revokedAt: null,
        createdAt: now,
      };
      const refresh = scopeList(session.scope).includes('offline_access') ? newRefreshToken(session, now) : undefined;
      if (!(await oidc.exchangeCode(request.id, session, refresh && { record: refresh.record, hash: refresh.hash }))) return usedTwice();
      return { session, nonce: request.nonce, refresh: refresh?.value };
    });
    if ('refusal' in outcome) throw outcome.refusal;
    return tokenSet(outcome.session, outcome.nonce, outcome.refresh);
  };
}
