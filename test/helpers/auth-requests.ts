/**
 * Authorization requests for the unit tests of what the provider seals (auth request ids, codes): the n-th of a
 * family whose optional fields are set for some n and null for others, so a test over several covers both.
 */
import { OIDC_CLIENT_ID, type OidcAuthRequest } from '../../src/domain/oidc.js';

/** The n-th started request, created at `now`. */
export function startedRequest(n: number, now: Date): OidcAuthRequest {
  return {
    id: '',
    handle: '',
    clientId: OIDC_CLIENT_ID,
    redirectUri: `http://127.0.0.1:${9000 + n}/auth/callback`,
    scope: 'openid offline_access',
    state: n % 2 ? `state-${n}` : null,
    nonce: n % 3 ? `nonce-${n}` : null,
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    method: 'S256',
    issuer: 'https://127.0.0.1:1280/oidc',
    identityId: null,
    amr: [],
    status: 'started',
    outstanding: [],
    codeExpiresAt: null,
    apiSessionId: `session-${n}`,
    authTime: null,
    configTypes: [],
    createdAt: now,
    expiresAt: new Date(now.getTime() + 600_000),
  };
}

/** The n-th request, logged in by password a second before `now` with nothing outstanding. */
export function loggedInRequest(n: number, now: Date): OidcAuthRequest {
  return {
    ...startedRequest(n, now),
    id: `request-${n}`,
    identityId: `identity-${n}`,
    amr: ['pwd'],
    status: 'authenticated',
    authTime: new Date(now.getTime() - 1_000),
    configTypes: n % 2 ? ['config-type-1'] : [],
    authenticatorId: n % 2 ? `authenticator-${n}` : null,
    ipAddress: n % 2 ? '127.0.0.1' : null,
  };
}
