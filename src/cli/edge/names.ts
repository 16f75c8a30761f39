/**
 * Names where people read: a list's role columns (`identityRoles: ["@3fK…", "#sales"]`) show `@alice` instead of
 * the id, and a name that matches nothing gets the closest names as a suggestion. Names are looked up in batches
 * (one request per referenced resource, an `id in [...]` filter), so a page of rows costs a bounded number of calls.
 */
import { closestMatch } from '../../shared/text-distance.js';
import type { Output } from '../output.js';
import type { ManagementClient } from './management-client.js';
import { printList, type Page } from './list-output.js';

/** The most ids one lookup asks for: the controller's largest page. */
const BATCH = 500;

/** The list path of the resource a role column names: `edgeRouterRoles` -> `/edge-routers`. */
function rolePathOf(column: string): string | undefined {
  const word = /^(\w+?)Roles$/.exec(column)?.[1];
  if (!word) return undefined;
  const kebab = word.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  return `/${kebab.endsWith('y') ? `${kebab.slice(0, -1)}ies` : `${kebab}s`}`;
}

/** The names of the entities at `path` with these ids, by id (ids that name nothing are left out). */
async function namesOf(client: ManagementClient, path: string, ids: string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (let start = 0; start < ids.length; start += BATCH) {
    const chunk = ids.slice(start, start + BATCH);
    const filter = `id in [${chunk.map((id) => JSON.stringify(id)).join(',')}]`;
    const answer = await client.call('GET', path, { query: { filter, limit: String(BATCH) } });
    for (const item of (answer.body?.data ?? []) as { id: string; name?: unknown }[]) if (typeof item.name === 'string') names.set(item.id, item.name);
  }
  return names;
}

/** The items with the `@id` entries of their shown role columns replaced by `@name` (an id that names nothing stays). */
export async function withRoleNames(client: ManagementClient, items: Record<string, unknown>[], columns: readonly string[]): Promise<Record<string, unknown>[]> {
  const named = items.map((item) => ({ ...item }));
  for (const column of columns) {
    const path = rolePathOf(column);
    if (!path) continue;
    const ids = new Set<string>();
    for (const item of items) for (const role of Array.isArray(item[column]) ? (item[column] as unknown[]) : []) if (typeof role === 'string' && role.startsWith('@')) ids.add(role.slice(1));
    if (ids.size === 0) continue;
    const names = await namesOf(client, path, [...ids]);
    for (const item of named) {
      const roles = item[column];
      if (Array.isArray(roles)) item[column] = roles.map((r) => (typeof r === 'string' && r.startsWith('@') && names.has(r.slice(1)) ? `@${names.get(r.slice(1))}` : r));
    }
  }
  return named;
}

/**
 * A suggestion for a name that matched nothing: the closest of the names that share its first or last two
 * characters, asked of the server with one bounded query rather than by fetching the whole collection.
 */
export async function suggestName(client: ManagementClient, path: string, value: string): Promise<string | undefined> {
  const head = value.slice(0, 2);
  const tail = value.slice(-2);
  const filter = `name contains ${JSON.stringify(head)} or name contains ${JSON.stringify(tail)}`;
  const answer = await client.call('GET', path, { query: { filter, limit: '100' } });
  const names = ((answer.body?.data ?? []) as { name?: unknown }[]).map((i) => i.name).filter((n): n is string => typeof n === 'string');
  return closestMatch(value, names);
}

/** Prints a page as printList does, with role columns by name in a table (JSON stays as the controller answered). */
export async function printNamedList(client: ManagementClient, page: Page, columns: readonly string[], json: boolean, out: Output): Promise<number> {
  return printList(json ? page : { ...page, items: await withRoleNames(client, page.items, columns) }, columns, json, out);
}
