/**
 * Which field a name in a filter means: a key of the list's FieldMap, or `tags.<key>` when the map has a `tags` field
 * (ZitiQL addresses one tag at a time: `tags.site = "s1"`). Shared by the parser (to type-check literals) and the
 * compiler (to read the column), so both agree on what a name means.
 */
import type { FieldMap, FieldSpec } from './ast.js';

/** Types that `sort by` and `<`, `between` cannot use: a set or an object has no single value to order by. */
export const UNORDERABLE_TYPES = new Set(['stringSet', 'tags', 'tag']);

/** The spec of `name`, or undefined when the list has no such field. */
export function resolveField(fields: FieldMap, name: string): FieldSpec | undefined {
  // Own properties only, so `constructor` or `__proto__` is never mistaken for a field.
  if (Object.hasOwn(fields, name)) return fields[name] as FieldSpec;
  const dot = name.indexOf('.');
  if (dot < 0) return undefined;
  const base = name.slice(0, dot);
  const spec = Object.hasOwn(fields, base) ? (fields[base] as FieldSpec) : undefined;
  if (spec?.type !== 'tags') return undefined;
  return { column: spec.column, type: 'tag', key: name.slice(dot + 1) };
}
