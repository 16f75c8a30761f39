/**
 * A bounded least-recently-used map: a Map keeps insertion order, so re-inserting an entry moves it to the end and
 * the first key is the one to evict. A read moves an entry only once it has fallen into the older half (more than
 * half the capacity of insertions ago): moving costs a delete and an insert, and the hot entries of a cache read on
 * every request are nearly always in the newer half. An entry read at least once in every `capacity / 2` insertions
 * is never evicted.
 */
export interface LruCache<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  delete(key: K): void;
  /** Forgets every entry. */
  clear(): void;
  readonly size: number;
}

/** @example const cache = createLru<string, number>(2); cache.set('a', 1); cache.get('a') // 1 */
export function createLru<K, V>(capacity: number): LruCache<K, V> {
  // Each entry with the insertion count at which it was last (re)inserted.
  const entries = new Map<K, { value: V; at: number }>();
  const half = Math.max(1, Math.floor(capacity / 2));
  let insertions = 0;
  const insert = (key: K, entry: { value: V; at: number }) => {
    entries.delete(key);
    entry.at = ++insertions;
    entries.set(key, entry);
  };
  return {
    get(key) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (insertions - entry.at >= half) insert(key, entry);
      return entry.value;
    },
    set(key, value) {
      insert(key, { value, at: 0 });
      while (entries.size > capacity) entries.delete(entries.keys().next().value as K);
    },
    delete(key) {
      entries.delete(key);
    },
    clear() {
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
