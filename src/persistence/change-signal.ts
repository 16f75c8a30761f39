/**
 * The in-process half of the change feed (docs/decisions/0035-change-feed-and-auth-cache.md): a store tells the
 * things that keep copies of its rows in memory (the authentication cache, the service reach index) about a change
 * this controller committed, the moment it is committed, so the next request here never reads an old copy. Other
 * controllers learn of it from the change log (repositories/authorization-changes.ts) through the change feed.
 */
import type { ChangedEntity } from './repositories/authorization-changes.js';

/** One committed change: which kind of entity and which one ('*' for many at once). */
export interface CommittedChange {
  entityType: ChangedEntity;
  entityId: string;
}

export interface ChangeSignal {
  /** Tells every listener, in order, about a change that has just been committed. */
  emit(change: CommittedChange): void;
  /** Calls `listener` for every change emitted from now on; returns the way to stop. */
  subscribe(listener: (change: CommittedChange) => void): () => void;
}

/** @example const signal = createChangeSignal(); signal.subscribe((c) => cache.evict(c)); signal.emit({ entityType: 'identity', entityId: id }); */
export function createChangeSignal(): ChangeSignal {
  const listeners = new Set<(change: CommittedChange) => void>();
  return {
    emit(change) {
      for (const listener of listeners) listener(change);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
