/**
 * Names wherever ids are accepted: an argument is looked up as `id = "x" or name = "x"` on the resource's list, so
 * `svc edge get identity alice` and `svc edge get identity 3fK…` both work. An argument that is one entity's id and
 * another's name is refused as ambiguous rather than guessed. Body fields that hold references are resolved the
 * same way, by the resource their name points at: `configTypeId` (config-types), `configs` (configs), and the
 * `@name` entries of role lists such as `identityRoles` (identities).
 */
import { camelOf, findResource, type ResourceSpec } from './catalogue.js';
import { refusedError, usageError } from '../cli-error.js';
import type { ManagementClient } from './management-client.js';

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
    throw refusedError(`no ${resource.singular} has the id or name '${value}'`);
  }
  throw usageError(
    `'${value}' is ambiguous: it names ${matches.length} ${resource.plural} (${matches.map((m) => `${m.name ?? ''} ${m.id}`.trim()).join('; ')}); give an id`,
  );
}

/** The resource a reference field points at: `configTypeId` -> config-type, `configs` -> config, `identityRoles` -> identity. */
function referencedResource(catalogue: Map<string, ResourceSpec>, field: string): { resource: ResourceSpec; roles: boolean } | undefined {
  const byCamel = (camel: string) => [...catalogue.values()].find((r) => camelOf(r.singular) === camel || camelOf(r.plural) === camel);
  const id = /^(\w+?)Ids?$/.exec(field);
  if (id) {
    const resource = byCamel(id[1] as string);
    return resource ? { resource, roles: false } : undefined;
  }
  const roles = /^(\w+?)Roles$/.exec(field);
  if (roles) {
    const resource = byCamel(roles[1] as string);
    return resource ? { resource, roles: true } : undefined;
  }
  const plural = findResource(catalogue, field);
  return plural && camelOf(plural.plural) === field ? { resource: plural, roles: false } : undefined;
}

/** The body with every reference given by name replaced by the id it names. */
export async function resolveReferences(client: ManagementClient, catalogue: Map<string, ResourceSpec>, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const resolved: Record<string, unknown> = { ...body };
  for (const [field, value] of Object.entries(body)) {
    const target = referencedResource(catalogue, field);
    if (!target || value === null || value === undefined) continue;
    const one = async (text: unknown): Promise<unknown> => {
      if (typeof text !== 'string') return text;
      if (!target.roles) return resolveId(client, target.resource, text);
      // A role `@x` names one entity: by id or by name; `#attribute` and `#all` pass as they are.
      if (!text.startsWith('@')) return text;
      const id = await resolveId(client, target.resource, text.slice(1));
      return `@${id}`;
    };
    resolved[field] = Array.isArray(value) ? await Promise.all(value.map(one)) : await one(value);
  }
  return resolved;
}
