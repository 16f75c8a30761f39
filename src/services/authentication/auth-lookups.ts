/**
 * What authenticating a request reads from the store (issue 17, must-have 1; decision 0035), served from memory on
 * a hit: the API session named by a legacy token, the OIDC session named by an access token, the identity, and its
 * auth policy. Each is a feed cache (change-feed/feed-cache.ts): a change to the row drops the copy at commit on this
 * controller and within the change feed's bound on the others; while the feed is not fresh the store is read.
 *
 * Logins, legacy and OIDC, read their identity and auth policy here too, so a login is judged on what every later
 * request of its session is judged on (an identity disabled at another controller is refused within the bound), and
 * so are a password login's authenticator and whether the identity has verified TOTP (decision 0043): every write of
 * an authenticator or an MFA enrollment records a change of its identity, which drops both copies.
 * What must never come from a copy stays in the store: password lockout counts, refresh-token rotation, the session
 * a login opens.
 */
import type { AuthPolicy } from '../../domain/auth-policy.js';
import type { ApiSession, Identity } from '../../domain/identity.js';
import type { OidcSession } from '../../domain/oidc.js';
import type { ApiSessionRepository } from '../../persistence/repositories/api-sessions.js';
import type { AuthPolicyRepository } from '../../persistence/repositories/auth-policies.js';
import type { CredentialRepository, PasswordCredential } from '../../persistence/repositories/credentials.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import type { MfaRepository } from '../../persistence/repositories/mfa.js';
import type { OidcRepository } from '../../persistence/repositories/oidc.js';
import type { ChangeFeed } from '../change-feed/change-feed.js';
import { createFeedCache } from '../change-feed/feed-cache.js';
import { usernameKey } from '../../policy/names.js';
import type { ChangedEntity } from '../../persistence/repositories/authorization-changes.js';

/** The kept copy of a row, at once, when there is one and the feed is fresh (FeedCache.peek); else undefined. */
export interface MemoryLookup<V> {
  peek(id: string): V | undefined;
}

/** Legacy sessions by their token's hash; `fromStore` skips the copy (a session whose copy says it has expired). */
export interface SessionLookup {
  findByTokenHash(tokenHash: string, options?: { fromStore?: boolean }): Promise<ApiSession | undefined>;
  delete(id: string): Promise<boolean>;
}

export interface AuthLookups {
  apiSessions: SessionLookup & MemoryLookup<ApiSession>;
  identities: Pick<IdentityRepository, 'findById'> & MemoryLookup<Identity>;
  authPolicies: Pick<AuthPolicyRepository, 'findById'> & MemoryLookup<AuthPolicy>;
  oidcSessions: Pick<OidcRepository, 'findSession'> & MemoryLookup<OidcSession>;
  /** A password login's authenticator, by username (its key: `Alice` finds `alice`); unknown usernames read the store. */
  passwords: Pick<CredentialRepository, 'findPassword'>;
  /** Whether an identity has verified TOTP (a login must then answer it). */
  totp: Pick<MfaRepository, 'isVerified'>;
}

/** The kinds of kept copies, as the metrics name them. */
export type AuthLookupKind = 'api-session' | 'oidc-session' | 'identity' | 'auth-policy' | 'password' | 'totp';

/** Entries kept per kind: about 200 MiB at most for all six together, far less in practice. */
export const DEFAULT_AUTH_CACHE_ENTRIES = 100_000;

/** @example const lookups = createAuthLookups({ feed, apiSessions, identities, authPolicies, oidc, credentials, mfa }); */
export function createAuthLookups(deps: {
  feed: ChangeFeed;
  apiSessions: Pick<ApiSessionRepository, 'findByTokenHash' | 'delete'>;
  identities: Pick<IdentityRepository, 'findById'>;
  authPolicies: Pick<AuthPolicyRepository, 'findById'>;
  oidc: Pick<OidcRepository, 'findSession'>;
  credentials: Pick<CredentialRepository, 'findPassword'>;
  mfa: Pick<MfaRepository, 'isVerified'>;
  capacity?: number;
  /** Told of each lookup served while the feed is fresh (the metrics' hit and miss counters). */
  onLookup?(kind: AuthLookupKind, hit: boolean): void;
}): AuthLookups {
  const { feed } = deps;
  const capacity = deps.capacity ?? DEFAULT_AUTH_CACHE_ENTRIES;
  /** Copies of `kind`, dropped by changes of `entity` (of the entity `idOf` names, when kept under another key). */
  const cache = <V>(kind: AuthLookupKind, entity: ChangedEntity, idOf?: (value: V) => string) =>
    createFeedCache<V>({ feed, entity, capacity, ...(idOf ? { idOf } : {}), onLookup: (hit) => deps.onLookup?.(kind, hit) });
  const sessions = cache<ApiSession>('api-session', 'api-session', (session) => session.id);
  const oidcSessions = cache<OidcSession>('oidc-session', 'oidc-session');
  const identities = cache<Identity>('identity', 'identity');
  const policies = cache<AuthPolicy>('auth-policy', 'auth-policy');
  // Both change with their identity: a password or username set, an authenticator or enrollment made or deleted.
  const passwords = cache<PasswordCredential>('password', 'identity', (credential) => credential.identityId);
  const totp = cache<boolean>('totp', 'identity');
  return {
    apiSessions: {
      findByTokenHash(tokenHash, options) {
        if (options?.fromStore) {
          sessions.drop(tokenHash);
          return deps.apiSessions.findByTokenHash(tokenHash);
        }
        return sessions.get(tokenHash, () => deps.apiSessions.findByTokenHash(tokenHash));
      },
      delete: (id) => deps.apiSessions.delete(id),
      peek: (tokenHash) => sessions.peek(tokenHash),
    },
    identities: { findById: (id) => identities.get(id, () => deps.identities.findById(id)), peek: (id) => identities.peek(id) },
    authPolicies: { findById: (id) => policies.get(id, () => deps.authPolicies.findById(id)), peek: (id) => policies.peek(id) },
    oidcSessions: { findSession: (id) => oidcSessions.get(id, () => deps.oidc.findSession(id)), peek: (id) => oidcSessions.peek(id) },
    passwords: { findPassword: (username) => passwords.get(usernameKey(username), () => deps.credentials.findPassword(username)) },
    totp: { isVerified: async (identityId) => (await totp.get(identityId, () => deps.mfa.isVerified(identityId))) === true },
  };
}
