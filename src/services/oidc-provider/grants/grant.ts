/**
 * What the token grants' logic shares with the provider service: the store, the clock, the secret box and the
 * issuing of token sets. The grants live one per file beside this one so that a grant's rules read in one place;
 * the provider (../oidc-provider.ts) builds them and keeps what every grant shares (issuing, client check).
 */
import type { SecretBox } from '../../../crypto/secret-box.js';
import type { OidcRefreshToken, OidcSession } from '../../../domain/oidc.js';
import type { OidcRepository } from '../../../persistence/repositories/oidc.js';
import type { Clock } from '../../../shared/clock.js';
import type { AuthorizationCodes } from '../oidc-codes.js';
import type { Params, TokenResponse } from '../oidc-provider.js';

/** A token grant's logic over the parsed token request (RFC 6749 §3.2), the client already checked. */
export type TokenGrantHandler = (params: Params) => Promise<TokenResponse>;

export interface TokenGrantDeps {
  oidc: OidcRepository;
  /** Opens the sealed authorization codes the provider minted (decision 0046). */
  codes: Pick<AuthorizationCodes, 'open'>;
  clock: Clock;
  /** Seals a rotated refresh token's successor for the grace window. */
  secrets: SecretBox;
  /**
   * Signs a token set for a session. With offline_access it carries a refresh token: `refresh` when the caller
   * already stored one (a rotation), else a new one stored by it (a code exchange).
   */
  tokenSet(session: OidcSession, nonce: string | null, refresh?: string): Promise<TokenResponse>;
  /** A new refresh token of `session`: its value for the client and its record (stored by SHA-256 only). */
  newRefreshToken(session: OidcSession, now: Date): { value: string; record: OidcRefreshToken; hash: string };
  /** A new refresh token's value, its SHA-256 and the parts of its record that do not depend on its session. */
  newRefreshSecret(now: Date): { value: string; record: Pick<OidcRefreshToken, 'id' | 'createdAt' | 'expiresAt'>; hash: string };
}
