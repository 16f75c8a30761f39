/**
 * Reading a request body's JSON Schema for the corpus: a plausible body to start from, the places a value can be
 * put, and which JSON types each place accepts, so that a generated value is wrong by construction (a wrong type,
 * a string past its maxLength, a number past its bounds, a name the schema does not allow).
 */
import type { JsonSchema } from './operations.js';
import type { JsonType } from './values.js';

const ALL_TYPES: readonly JsonType[] = ['string', 'number', 'boolean', 'null', 'array', 'object'];

/** The branches of a union, or the schema itself. */
export function branches(schema: JsonSchema): JsonSchema[] {
  return (schema.anyOf ?? schema.oneOf ?? [schema]) as JsonSchema[];
}

/** The JSON types a schema accepts; undefined when it accepts anything (no type information). */
export function acceptedTypes(schema: JsonSchema): Set<JsonType> | undefined {
  const types = new Set<JsonType>();
  for (const branch of branches(schema)) {
    const values: unknown[] | undefined = branch.enum ?? ('const' in branch ? [branch.const] : undefined);
    if (branch.type !== undefined) {
      for (const type of [branch.type].flat() as string[]) types.add(type === 'integer' ? 'number' : (type as JsonType));
    } else if (values) {
      for (const value of values) types.add(value === null ? 'null' : Array.isArray(value) ? 'array' : (typeof value as JsonType));
    } else {
      return undefined;
    }
  }
  return types;
}

/** The JSON types a schema refuses. */
export function wrongTypes(schema: JsonSchema): JsonType[] {
  const accepted = acceptedTypes(schema);
  return accepted ? ALL_TYPES.filter((type) => !accepted.has(type)) : [];
}

/** A value the schema probably accepts (required members only); it need not be valid, only plausible. */
export function sampleValue(schema: JsonSchema, depth = 0): unknown {
  const first = branches(schema)[0] as JsonSchema;
  if ('const' in first) return first.const;
  if (first.enum) return first.enum[0];
  const type = [first.type].flat()[0];
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const name of (first.required ?? []) as string[]) out[name] = depth < 6 ? sampleValue(first.properties?.[name] ?? {}, depth + 1) : {};
      return out;
    }
    case 'array':
      return [];
    case 'string':
      if (first.format === 'date-time') return new Date(Date.now() + 86_400_000).toISOString();
      return 'corpus'.padEnd(Math.max(first.minLength ?? 0, 6), 'x').slice(0, first.maxLength ?? 64);
    case 'integer':
    case 'number':
      return first.minimum ?? 1;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/** A place in the body where a value can be put, and the schema of what belongs there. */
export interface Slot {
  path: string[];
  schema: JsonSchema;
  /** The parent object refuses names it does not declare. */
  closed: boolean;
}

/**
 * The declared members of the body and of its nested objects (3 levels), and for maps (`patternProperties`,
 * `additionalProperties` schemas) one member under a made-up name.
 */
export function slots(schema: JsonSchema, path: string[] = [], depth = 0): Slot[] {
  const out: Slot[] = [];
  for (const branch of branches(schema)) {
    if (branch.type !== 'object') continue;
    const closed = branch.additionalProperties === false;
    for (const [name, member] of Object.entries((branch.properties ?? {}) as Record<string, JsonSchema>)) {
      out.push({ path: [...path, name], schema: member, closed });
      if (depth < 2) out.push(...slots(member, [...path, name], depth + 1));
    }
    const mapped = Object.values((branch.patternProperties ?? {}) as Record<string, JsonSchema>)[0] ?? (typeof branch.additionalProperties === 'object' ? branch.additionalProperties : undefined);
    if (mapped) out.push({ path: [...path, 'corpus-key'], schema: mapped, closed });
  }
  return out;
}

/** Objects in the body (the body itself included) that refuse undeclared names: where an unknown field goes. */
export function closedObjects(schema: JsonSchema, path: string[] = [], depth = 0): Array<{ path: string[]; declared: Set<string> }> {
  const out: Array<{ path: string[]; declared: Set<string> }> = [];
  for (const branch of branches(schema)) {
    if (branch.type !== 'object') continue;
    if (branch.additionalProperties === false) out.push({ path, declared: new Set(Object.keys(branch.properties ?? {})) });
    if (depth < 2) for (const [name, member] of Object.entries((branch.properties ?? {}) as Record<string, JsonSchema>)) out.push(...closedObjects(member, [...path, name], depth + 1));
  }
  return out;
}

/** A copy of `body` with `value` at `path`, creating the objects on the way. */
export function withValueAt(body: unknown, path: readonly string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string, ...string[]];
  const object = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  return { ...object, [head]: withValueAt(object[head], rest, value) };
}
