/**
 * Authorization codes that carry their own grant (decision 0046): the code handed to the client is the logged-in
 * request, sealed with AES-256-GCM under the controller's secrets key (crypto/secret-box.ts), so neither the primary
 * login nor the callback writes to the store, and the code exchange is the login's only write: its session (keyed by
 * the code's session id, so a code is redeemed once on every controller) and first refresh token.
 *
 * A code is worth what it says only within its minute (CODE_TTL_MS); nobody can alter its client, redirect URI, PKCE
 * challenge, identity or expiry without the key. Every controller sharing a store shares that key, as it must for
 * sealed auth request ids, so a code minted at one controller is redeemed at another.
 *
 * A code is opened twice (callback, exchange): the codes this controller minted or opened lately are kept opened
 * (sealed-json.ts).
 */
import type { SecretBox } from '../../crypto/secret-box.js';
import { OIDC_CLIENT_ID, type OidcAuthRequest } from '../../domain/oidc.js';
import { hasRequestFields, requestFields, sealedJson, text, textOrNull, texts, type SealedRequestFields } from './sealed-json.js';

/** Additional data bound into every seal: an auth request id or any other sealed value never opens as a code. */
const CONTEXT = 'oidc-code v1';
/** How long a code may be redeemed after it was minted (RFC 6749 §4.1.2: short-lived, ten minutes at most). */
export const CODE_TTL_MS = 60_000;

/** What a code grants: the request as it logged in, and the session it opens. */
export type AuthorizationCode = Readonly<
  Pick<OidcAuthRequest, 'clientId' | 'redirectUri' | 'scope' | 'state' | 'nonce' | 'codeChallenge' | 'issuer'> & {
    /** The code itself, as the client presents it. */
    value: string;
    /** The session the code opens; its id is unique, so the code is redeemed at most once. */
    sessionId: string;
    identityId: string;
    amr: readonly string[];
    authTime: Date;
    configTypes: readonly string[];
    authenticatorId: string | null;
    ipAddress: string | null;
    /** The third-party CA the login chain reached (decision 0057). */
    caId: string | null;
    expiresAt: Date;
  }
>;

/** The sealed fields, short-named: the code travels in two URLs and a form. */
interface SealedCode extends SealedRequestFields {
  /** the session's id */
  a: string;
  /** the identity's id */
  u: string;
  // Then amr, auth time (ms), config types, authenticator, client address and expiry (ms).
  m: string[];
  t: number;
  ct: string[];
  au: string | null;
  ip: string | null;
  e: number;
  /** the third-party CA the login chain reached; absent in codes minted before it was sealed */
  ca?: string | null;
}

export interface AuthorizationCodes {
  /** A code for a fully authenticated request, opening session `sessionId`, valid from `now` for CODE_TTL_MS. */
  mint(request: OidcAuthRequest, sessionId: string, now: Date): AuthorizationCode;
  /** The grant a code stands for, or undefined when it is not a code of ours (or was altered); expiry not checked. */
  open(value: string): AuthorizationCode | undefined;
}

function codeOf(value: string, f: SealedCode): AuthorizationCode {
  return Object.freeze({
    value,
    sessionId: f.a,
    identityId: f.u,
    clientId: OIDC_CLIENT_ID,
    redirectUri: f.r,
    scope: f.s,
    state: f.st,
    nonce: f.n,
    codeChallenge: f.cc,
    issuer: f.i,
    amr: Object.freeze([...f.m]),
    authTime: new Date(f.t),
    configTypes: Object.freeze([...f.ct]),
    authenticatorId: f.au,
    ipAddress: f.ip,
    caId: f.ca ?? null,
    expiresAt: new Date(f.e),
  });
}

/** The fields of parsed JSON when each has its type. */
function accept(f: Partial<SealedCode>): SealedCode | undefined {
  const valid =
    hasRequestFields(f) && text(f.a) && text(f.u) && texts(f.m) &&
    typeof f.t === 'number' && texts(f.ct) && textOrNull(f.au) && textOrNull(f.ip) && typeof f.e === 'number' && (f.ca === undefined || textOrNull(f.ca));
  return valid ? (f as SealedCode) : undefined;
}

export function createAuthorizationCodes(box: SecretBox, openedCacheSize?: number): AuthorizationCodes {
  const sealed = sealedJson(box, CONTEXT, accept, codeOf, openedCacheSize);
  return {
    mint(request, sessionId, now) {
      if (request.identityId === null) throw new Error('a code is minted for a logged-in request only');
      return sealed.seal({
        ...requestFields(request),
        a: sessionId,
        u: request.identityId,
        m: [...request.amr],
        t: (request.authTime ?? now).getTime(),
        ct: [...request.configTypes],
        au: request.authenticatorId ?? null,
        ip: request.ipAddress ?? null,
        e: now.getTime() + CODE_TTL_MS,
        ca: request.caId ?? null,
      });
    },
    open: (value) => sealed.open(value),
  };
}
