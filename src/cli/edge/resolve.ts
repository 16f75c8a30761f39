/**
 * Names wherever ids are accepted: an argument is looked up as `id = "x" or name = "x"` on the resource's list, so
 * `svc edge get identity alice` and `svc edge get identity 3fK…` both work. An argument that is one entity's id and
 * another's name is refused as ambiguous rather than guessed. Body fields that hold references are resolved the
 * same way, by the resource the field points at, read from the Management API document alone (nothing here names a
 * resource): `xId`/`xIds` (`configTypeId`, `identityId`, `caId`), a field named by a resource's plural (`configs`),
 * a field `x` whose resource's items carry `xId` (a terminator's `service` and `router`; not its `identity`, the
 * hosting instance's free-form id, whose items carry no `identityId`), the `@name` entries of role lists such as
 * `identityRoles`, and the keys of maps described as `service id -> …` (`serviceHostingCosts`).
 */
import { camelOf, type FieldSpec, type ResourceSpec } from './catalogue.js';
import { refusedError, usageError } from '../cli-error.js';
import type { ManagementClient } from './management-client.js';
import { suggestName } from './names.js';

/** A filter string literal (the filter grammar's escapes are JSON's for every printable character). */
function quoted(value: string): string {
  return JSON.stringify(value);
}

/** The id `value` names in `resource`: its own id, or the id of the one entity with that name. */
export async function resolveId(client: ManagementClient, resource: ResourceSpec, value: string, required = true): Promise<string | undefined> {
  if (!resource.named) return value;
  const filter = `id = ${quoted(value)} or name = ${quoted(value)}`;
  const answer = await client.call('GET', resource.list.path, { query: { filter, limit: '3' } });
  const matches = (answer.body?.data ?? []) as { id: string; name?: string }[];
  if (matches.length === 1) return (matches[0] as { id: string }).id;
  if (matches.length === 0) {
    if (!required) return undefined;
    const near = await suggestName(client, resource.list.path, value);
    throw refusedError(`no ${resource.singular} has the id or name '${value}'${near ? `; did you mean '${near}'?` : ''}`);
  }
  throw usageError(
    `'${value}' is ambiguous: it names ${matches.length} ${resource.plural} (${matches.map((m) => `${m.name ?? ''} ${m.id}`.trim()).join('; ')}); give an id`,
  );
}

type Reference = { resource: ResourceSpec; holds: 'ids' | 'roles' | 'keys' };

const capitalised = (word: string) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`;

/**
 * The resource a word names, from a field of `owner`: its singular or plural (`configType`, `configs`), else the
 * owner's own kind of it (`typeId` of a posture check -> posture-check-type), else the one resource whose name ends
 * with it (`router` -> edge-router, while no resource is called just `router`).
 */
function resourceNamed(catalogue: Map<string, ResourceSpec>, word: string, owner?: ResourceSpec): ResourceSpec | undefined {
  const all = [...catalogue.values()];
  const exact = all.find((r) => camelOf(r.singular) === word || camelOf(r.plural) === word);
  if (exact) return exact;
  const owned = owner && all.find((r) => camelOf(r.singular) === `${camelOf(owner.singular)}${capitalised(word)}`);
  if (owned) return owned;
  const endings = all.filter((r) => camelOf(r.singular).endsWith(capitalised(word)));
  return endings.length === 1 ? endings[0] : undefined;
}

/** The resource a body field of `owner` refers to, and how its value holds the references; undefined for a plain value. */
function referenceOf(catalogue: Map<string, ResourceSpec>, field: FieldSpec, owner?: ResourceSpec): Reference | undefined {
  // A value from a fixed list (an identity's `type`, a posture check's `typeId`) is a word, not an entity to look up.
  if (field.choices) return undefined;
  const target = (word: string, holds: Reference['holds']) => {
    const resource = resourceNamed(catalogue, word, owner);
    return resource ? { resource, holds } : undefined;
  };
  if (field.kind === 'object') {
    const keyed = /^([a-z][\w-]*) ids? ->/i.exec(field.description ?? '');
    return keyed ? target(camelOf((keyed[1] as string).toLowerCase()), 'keys') : undefined;
  }
  if (field.kind !== 'string' && field.kind !== 'string-array') return undefined;
  const id = /^(\w+?)Ids?$/.exec(field.name);
  if (id) return target(id[1] as string, 'ids');
  const roles = /^(\w+?)Roles$/.exec(field.name);
  if (roles) return target(roles[1] as string, 'roles');
  const plural = [...catalogue.values()].find((r) => camelOf(r.plural) === field.name && r.plural !== r.singular);
  if (plural) return { resource: plural, holds: 'ids' };
  // `service` on a terminator: its items carry `serviceId`, so the body's `service` is that id.
  const items = owner?.itemFields ?? [];
  if (items.includes(`${field.name}Id`) || items.includes(`${field.name}Ids`)) return target(field.name, 'ids');
  return undefined;
}

/** The fields of `owner`'s create and update bodies, by name (a body may hold either's). */
function fieldsOf(owner: ResourceSpec | undefined): Map<string, FieldSpec> {
  const fields = new Map<string, FieldSpec>();
  for (const field of [...(owner?.create?.fields ?? []), ...(owner?.update?.fields ?? [])]) if (!fields.has(field.name)) fields.set(field.name, field);
  return fields;
}

/**
 * The body with every reference given by name replaced by the id it names. `owner` is the resource the body is for;
 * without it, only fields whose names say what they hold (`xId`, `xRoles`, a resource's plural) are resolved.
 */
export async function resolveReferences(
  client: ManagementClient,
  catalogue: Map<string, ResourceSpec>,
  body: Record<string, unknown>,
  owner?: ResourceSpec,
): Promise<Record<string, unknown>> {
  const resolved: Record<string, unknown> = { ...body };
  const fields = fieldsOf(owner);
  for (const [name, value] of Object.entries(body)) {
    const field: FieldSpec = fields.get(name) ?? { name, flag: name, kind: Array.isArray(value) ? 'string-array' : typeof value === 'string' ? 'string' : 'object', required: false, nullable: false };
    const target = referenceOf(catalogue, field, owner);
    if (!target || value === null || value === undefined) continue;
    if (target.holds === 'keys') {
      if (typeof value !== 'object' || Array.isArray(value)) continue;
      const entries = await Promise.all(Object.entries(value).map(async ([key, inner]) => [await resolveId(client, target.resource, key), inner] as const));
      resolved[name] = Object.fromEntries(entries);
      continue;
    }
    const one = async (text: unknown): Promise<unknown> => {
      if (typeof text !== 'string') return text;
      if (target.holds === 'ids') return resolveId(client, target.resource, text);
      // A role `@x` names one entity: by id or by name; `#attribute` and `#all` pass as they are.
      if (!text.startsWith('@')) return text;
      const id = await resolveId(client, target.resource, text.slice(1));
      return `@${id}`;
    };
    resolved[name] = Array.isArray(value) ? await Promise.all(value.map(one)) : await one(value);
  }
  return resolved;
}
