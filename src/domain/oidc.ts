/**
 * The OIDC provider's records as the services see them (spec: OIDC tokens, OIDC authorization request).
 */

/** The one client of the provider: public, PKCE S256 (spec: OIDC provider, client id `svc`). */
export const OIDC_CLIENT_ID = 'svc';

import type { OutstandingFactor } from './auth-policy.js';

/**
 * The spec's states: started, partially authenticated (primary login accepted, a secondary factor outstanding),
 * code issued, tokens issued; and between the last factor and the code, `authenticated`: every factor answered, the
 * user agent on its way to the controller's callback (`/oidc/authorize/callback`), which issues the code once.
 * A `started` request exists only in its sealed id (services/oidc-provider/oidc-auth-request-seal.ts); the store holds
 * a request only while it owes a secondary factor and until its callback. A login that owes none goes from started to
 * code issued in its sealed code, and to tokens issued when the code's session is stored (decision 0046).
 */
export type AuthRequestStatus = 'started' | 'partially_authenticated' | 'authenticated' | 'code_issued' | 'tokens_issued';

export interface OidcAuthRequest {
  /** The store key (a UUID inside the sealed public id). */
  id: string;
  /** The public id (`authRequestID`): the sealed request; empty for a request read from the store. */
  handle: string;
  clientId: string;
  redirectUri: string;
  /** Space-separated scope values as requested (RFC 6749 §3.3). */
  scope: string;
  state: string | null;
  nonce: string | null;
  codeChallenge: string;
  method: 'S256';
  issuer: string;
  identityId: string | null;
  amr: string[];
  status: AuthRequestStatus;
  /** The secondary factors still to be answered; non-empty exactly while `partially_authenticated`. */
  outstanding: OutstandingFactor[];
  codeExpiresAt: Date | null;
  /** The `z_asid` of the session the request leads to. */
  apiSessionId: string;
  authTime: Date | null;
  /** The config types the login asked for (`configTypes` in its body); they become the session's `z_ct`. */
  configTypes: string[];
  /** What the primary login used and where it came from (absent or null before it): copied to the session. */
  authenticatorId?: string | null;
  ipAddress?: string | null;
  /** The third-party CA the login chain reached (decision 0057); its withdrawal ends the session. */
  caId?: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export interface OidcSession {
  id: string;
  identityId: string;
  clientId: string;
  issuer: string;
  scope: string;
  amr: string[];
  authTime: Date;
  /** Config types asked for at login (`z_ct` of its access tokens). */
  configTypes: string[];
  revokedAt: Date | null;
  /**
   * The authenticator the login used (as a legacy session's `authenticatorId`) and the address it came from; absent or
   * null when unknown (sessions opened before migration 0021).
   */
  authenticatorId?: string | null;
  ipAddress?: string | null;
  /** The third-party CA the login chain reached (decision 0057); null for the controller's own CAs and other methods. */
  caId?: string | null;
  createdAt: Date;
}

export interface OidcRefreshToken {
  id: string;
  sessionId: string;
  status: 'active' | 'rotated' | 'revoked';
  createdAt: Date;
  expiresAt: Date;
  /** When it was rotated (null while active): starts the reuse grace window. */
  rotatedAt: Date | null;
  /** The token it was rotated to, sealed, for a duplicate request within the grace window. */
  successorSealed: string | null;
}

/**
 * Why a refresh grant may not rotate `token` of `session` at `at` for `clientId`, in the order a client is told:
 * already rotated, revoked (the token or its session), expired, issued to another client. Undefined when it may: the
 * one statement of the PostgreSQL store checks the same in SQL (repositories/oidc.ts, decision 0052).
 */
export function refreshRefusal(
  token: OidcRefreshToken,
  session: OidcSession,
  at: Date,
  clientId: string | undefined,
): 'rotated' | 'revoked' | 'expired' | 'other-client' | undefined {
  if (token.status === 'rotated') return 'rotated';
  if (token.status === 'revoked' || session.revokedAt !== null) return 'revoked';
  if (token.expiresAt.getTime() <= at.getTime()) return 'expired';
  if (clientId !== session.clientId) return 'other-client';
  return undefined;
}

/** The scope values of a space-separated `scope` parameter (RFC 6749 §3.3). */
export function scopeList(scope: string): string[] {
  return scope.split(' ').filter(Boolean);
}
