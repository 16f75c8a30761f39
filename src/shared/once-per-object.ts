/**
 * A value made once per key object and kept as long as the key lives (a WeakMap): the wire view of a kept value, or
 * the text of a kept answer. Only for keys that are never changed in place, as kept values are not: a change gives a
 * new object, and so a new value.
 *
 * @example const viewOf = oncePerObject((detail: Detail) => Object.freeze(envelope(view(detail)))); viewOf(d) === viewOf(d)
 */
export function oncePerObject<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    if (made.has(key)) return made.get(key) as V;
    const value = make(key);
    made.set(key, value);
    return value;
  };
}
