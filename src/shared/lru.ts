/**
 * A bounded least-recently-used map: a Map keeps insertion order, so re-inserting on read moves an entry to the
 * end and the first key is always the least recently used one.
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
  const entries = new Map<K, V>();
  return {
    get(key) {
      const value = entries.get(key);
      if (value === undefined) return undefined;
      entries.delete(key);
      entries.set(key, value);
      return value;
    },
    set(key, value) {
      entries.delete(key);
      entries.set(key, value);
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
