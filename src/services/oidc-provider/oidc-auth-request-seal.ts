/**
 * An authorization request that has not logged in yet lives in its own id, not in the store (issue 11, point 10):
 * `GET /oidc/authorization` needs no credential, so a request stored at that point would let any caller grow the
 * store by a row per call. The id handed to the user agent (`authRequestID`) is the request itself, sealed with
 * AES-256-GCM (crypto/secret-box.ts) so that nobody can alter its redirect URI, PKCE challenge or expiry; the store
 * learns of it only when a primary login succeeds, keyed by the SHA-256 of that id (so two logins racing on one id
 * meet on one row, and the id itself, a bearer of the login in progress, is not stored).
 *
 * Every controller sharing a store must share the secrets key (edge.totp.encryptionKeyFile), as for TOTP secrets,
 * so that a login may continue at another controller.
 *
 * A login opens its id more than once (login page, login), each an AES-GCM decryption and a parse: the requests this
 * controller sealed or opened lately are kept opened (sealed-json.ts).
 */
import type { SecretBox } from '../../crypto/secret-box.js';
import { hashToken } from '../../crypto/secrets.js';
import { OIDC_CLIENT_ID, type OidcAuthRequest } from '../../domain/oidc.js';
import { hasRequestFields, requestFields, sealedJson, text, type SealedRequestFields } from './sealed-json.js';

/** Additional data bound into every seal: a value sealed for another purpose never opens as an auth request. */
const CONTEXT = 'oidc-auth-request v1';

/** The sealed fields: what `authorize` learned (the session id, created and expiry times besides the request's). */
interface SealedFields extends SealedRequestFields {
  a: string;
  c: number;
  e: number;
}

export interface AuthRequestSeal {
  /** The public id (`authRequestID`) of a request that has not logged in yet (its `id` and `handle` are ignored). */
  seal(request: OidcAuthRequest): string;
  /** The started request a public id stands for, or undefined when it is not one of ours (or was altered). */
  open(handle: string): OidcAuthRequest | undefined;
}

/** The store key of the request a public id stands for. */
export const authRequestKey = (handle: string) => hashToken(handle);

/** An empty list that cannot be added to: a cached request is shared, and nothing may change it for the others. */
const none = <T>(): T[] => Object.freeze([] as T[]) as T[];

/** The started request that `handle` seals, frozen: cached copies are handed to every caller. */
function startedRequest(handle: string, { r, s, st, n, cc, i, a, c, e }: SealedFields): OidcAuthRequest {
  return Object.freeze({
    id: authRequestKey(handle),
    handle,
    clientId: OIDC_CLIENT_ID,
    redirectUri: r,
    scope: s,
    state: st,
    nonce: n,
    codeChallenge: cc,
    method: 'S256',
    issuer: i,
    identityId: null,
    amr: none<string>(),
    status: 'started',
    outstanding: none<OidcAuthRequest['outstanding'][number]>(),
    codeExpiresAt: null,
    apiSessionId: a,
    authTime: null,
    configTypes: none<string>(),
    createdAt: new Date(c),
    expiresAt: new Date(e),
  });
}

export function createAuthRequestSeal(box: SecretBox, openedCacheSize?: number): AuthRequestSeal {
  const sealed = sealedJson<SealedFields, OidcAuthRequest>(
    box,
    CONTEXT,
    (f) => (hasRequestFields(f) && text(f.a) && typeof f.c === 'number' && typeof f.e === 'number' ? (f as SealedFields) : undefined),
    startedRequest,
    openedCacheSize,
  );
  return {
    seal: (request) =>
      sealed.seal({
        ...requestFields(request),
        a: request.apiSessionId,
        c: request.createdAt.getTime(),
        e: request.expiresAt.getTime(),
      }).handle,
    open: (handle) => sealed.open(handle),
  };
}
