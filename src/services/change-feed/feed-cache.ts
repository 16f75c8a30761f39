/**
 * A bounded copy of store rows of one kind, kept correct by the change feed (decision 0035): a row is dropped the
 * moment the feed tells of a change to it (here at commit, elsewhere within the feed's bound), everything is dropped
 * on a reset, and nothing is served while the feed is not fresh (the store is then read, and fails if it is down).
 *
 * A read that raced a change is not kept: a value loaded while the feed learnt of any change may predate it.
 */
import type { ChangedEntity } from '../../persistence/repositories/authorization-changes.js';
import { createLru } from '../../shared/lru.js';
import type { ChangeFeed } from './change-feed.js';

export interface FeedCache<V> {
  /** The value under `key`: the kept copy, else `load()`'s answer (kept when it is safe to). */
  get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined>;
  /**
   * The kept copy under `key`, at once, when there is one and the feed is fresh; else undefined (then `get` decides).
   * For the request path's synchronous answer on a hit (request-auth.ts, decision 0041).
   */
  peek(key: string): V | undefined;
  /** Drops the copy under `key`. */
  drop(key: string): void;
  readonly size: number;
}

/** @example const identities = createFeedCache<Identity>({ feed, entity: 'identity', capacity: 50_000 }); await identities.get(id, () => repo.findById(id)); */
export function createFeedCache<V>(options: {
  feed: ChangeFeed;
  /** The change-log entity whose changes drop copies. */
  entity: ChangedEntity;
  /** Entities a change of which drops every copy (what many values show, such as an auth policy's name). */
  clearOn?: readonly ChangedEntity[];
  capacity: number;
  /**
   * The entity id of a value, when values are looked up by another key (an API session by its token's hash); absent,
   * the key is the entity id.
   */
  idOf?(value: V): string;
  /** Told of every lookup served while the feed is fresh: a hit or a miss. */
  onLookup?(hit: boolean): void;
}): FeedCache<V> {
  const { feed, entity } = options;
  const kept = createLru<string, V>(options.capacity);
  // Entity id -> key, for values kept under another key; an alias whose value has left `kept` drops nothing.
  const keys = options.idOf ? createLru<string, string>(options.capacity) : undefined;
  const clear = () => {
    kept.clear();
    keys?.clear();
  };
  feed.subscribe((event) => {
    if (event.kind === 'reset') return clear();
    for (const change of event.changes) {
      if (change.entityType === '*' || options.clearOn?.includes(change.entityType)) return clear();
      if (change.entityType === entity) kept.delete(keys?.get(change.entityId) ?? change.entityId);
    }
  });

  return {
    async get(key, load) {
      if (!feed.fresh()) return load();
      const copy = kept.get(key);
      options.onLookup?.(copy !== undefined);
      if (copy !== undefined) return copy;
      const before = feed.generation;
      const value = await load();
      if (value !== undefined && feed.generation === before && feed.fresh()) {
        kept.set(key, value);
        if (keys && options.idOf) keys.set(options.idOf(value), key);
      }
      return value;
    },
    peek(key) {
      if (!feed.fresh()) return undefined;
      const copy = kept.get(key);
      // A miss is not counted here: the `get` that follows counts it.
      if (copy !== undefined) options.onLookup?.(true);
      return copy;
    },
    drop: (id) => kept.delete(id),
    get size() {
      return kept.size;
    },
  };
}
