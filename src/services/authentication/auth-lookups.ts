/**
 * What authenticating a request reads from the store (issue 17, must-have 1; decision 0035), served from memory on
 * a hit: the API session named by a legacy token, the OIDC session named by an access token, the identity, and its
 * auth policy. Each is a feed cache (change-feed/feed-cache.ts): a change to the row drops the copy at commit on this
 * controller and within the change feed's bound on the others; while the feed is not fresh the store is read.
 *
 * Logins, legacy and OIDC, read their identity and auth policy here too, so a login is judged on what every later
 * request of its session is judged on (an identity disabled at another controller is refused within the bound).
 * What must never come from a copy stays in the store: the credential a login checks (password hash, certificate
 * authenticator), password lockout counts, refresh-token rotation, the session a login opens.
 */
import type { AuthPolicy } from '../../domain/auth-policy.js';
import type { ApiSession, Identity } from '../../domain/identity.js';
import type { OidcSession } from '../../domain/oidc.js';
import type { ApiSessionRepository } from '../../persistence/repositories/api-sessions.js';
import type { AuthPolicyRepository } from '../../persistence/repositories/auth-policies.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import type { OidcRepository } from '../../persistence/repositories/oidc.js';
import type { ChangeFeed } from '../change-feed/change-feed.js';
import { createFeedCache } from '../change-feed/feed-cache.js';

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
}

/** Entries kept per kind: about 200 MiB at most for the four together, far less in practice. */
export const DEFAULT_AUTH_CACHE_ENTRIES = 100_000;

/** @example const lookups = createAuthLookups({ feed, apiSessions, identities, authPolicies, oidc }); */
export function createAuthLookups(deps: {
  feed: ChangeFeed;
  apiSessions: Pick<ApiSessionRepository, 'findByTokenHash' | 'delete'>;
  identities: Pick<IdentityRepository, 'findById'>;
  authPolicies: Pick<AuthPolicyRepository, 'findById'>;
  oidc: Pick<OidcRepository, 'findSession'>;
  capacity?: number;
  /** Told of each lookup served while the feed is fresh (the metrics' hit and miss counters). */
  onLookup?(kind: 'api-session' | 'oidc-session' | 'identity' | 'auth-policy', hit: boolean): void;
}): AuthLookups {
  const { feed } = deps;
  const capacity = deps.capacity ?? DEFAULT_AUTH_CACHE_ENTRIES;
  const cache = <V>(entity: 'api-session' | 'oidc-session' | 'identity' | 'auth-policy', idOf?: (value: V) => string) =>
    createFeedCache<V>({ feed, entity, capacity, ...(idOf ? { idOf } : {}), onLookup: (hit) => deps.onLookup?.(entity, hit) });
  const sessions = cache<ApiSession>('api-session', (session) => session.id);
  const oidcSessions = cache<OidcSession>('oidc-session');
  const identities = cache<Identity>('identity');
  const policies = cache<AuthPolicy>('auth-policy');
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
  };
}
