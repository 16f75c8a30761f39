/**
 * What the router knows has stopped being valid (pushed by the controller, decision 0062): ended API sessions and
 * disabled or deleted identities. The SDK edge listener (issue 42) checks every channel's API session and identity
 * here, offline, and closes channels as revocations arrive. Entries are kept for `keepMs` (at least the longest token
 * lifetime, after which a token is refused for its `exp` anyway) and at most `capacity` of them, oldest dropped first,
 * so that a flood of revocations cannot grow the router without bound.
 */
import type { Revocation } from '../../control-protocol/bodies.js';

export interface RevocationState {
  /** Applies pushed revocations; calls the listeners with the new ones. */
  apply(items: readonly Revocation[], now: number): void;
  isSessionRevoked(apiSessionId: string, now: number): boolean;
  isIdentityRevoked(identityId: string, now: number): boolean;
  /** True when the identity was disabled or deleted at or after `since` (ms): a session begun before then is over. */
  identityRevokedSince(identityId: string, since: number): boolean;
  /** When policies last changed (a dial decided before then is decided again). */
  readonly accessChangedAt: number;
  /** Calls `listener` with every revocation applied from now on; returns the way to stop. */
  subscribe(listener: (items: readonly Revocation[]) => void): () => void;
  readonly size: number;
}

export function createRevocationState(options: { keepMs: number; capacity: number }): RevocationState {
  // Insertion order is age order: Map iteration drops the oldest first.
  const sessions = new Map<string, number>();
  const identities = new Map<string, number>();
  const listeners = new Set<(items: readonly Revocation[]) => void>();
  let accessChangedAt = 0;

  const remember = (map: Map<string, number>, id: string, at: number) => {
    map.delete(id);
    map.set(id, at);
    while (map.size > options.capacity) map.delete(map.keys().next().value as string);
  };
  const live = (map: Map<string, number>, id: string, now: number) => {
    const at = map.get(id);
    if (at === undefined) return false;
    if (now - at <= options.keepMs) return true;
    map.delete(id);
    return false;
  };

  return {
    apply(items, now) {
      for (const item of items) {
        if (item.kind === 'api-session') remember(sessions, item.id, now);
        else if (item.kind === 'identity') remember(identities, item.id, Math.min(now, item.committedAt || now));
        else if (item.kind === 'access') accessChangedAt = Math.max(accessChangedAt, item.committedAt);
      }
      for (const listener of listeners) listener(items);
    },
    isSessionRevoked: (id, now) => live(sessions, id, now),
    isIdentityRevoked: (id, now) => live(identities, id, now),
    identityRevokedSince(id, since) {
      const at = identities.get(id);
      return at !== undefined && at >= since;
    },
    get accessChangedAt() {
      return accessChangedAt;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    get size() {
      return sessions.size + identities.size;
    },
  };
}
