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

/**
 * The list path of the entities a column refers to, and whether it holds roles, if it is one of `paths` (the
 * Management API's list paths): `edgeRouterRoles` -> `/edge-routers` (roles), `identityId` -> `/identities`,
 * `configs` -> `/configs`.
 */
function referenceOf(column: string, paths: ReadonlySet<string>): { path: string; roles: boolean } | undefined {
  const pathOf = (word: string) => {
    const kebab = word.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    return kebab.endsWith('s') ? `/${kebab}` : `/${kebab.endsWith('y') ? `${kebab.slice(0, -1)}ie` : kebab}s`;
  };
  const roles = /^(\w+?)Roles$/.exec(column)?.[1];
  const word = roles ?? /^(\w+?)Ids?$/.exec(column)?.[1] ?? column;
  const path = pathOf(word);
  return paths.has(path) ? { path, roles: roles !== undefined } : undefined;
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

/** The id a cell entry refers to: a role's `@id`, or a plain id; undefined for `#attribute` roles and non-strings. */
function idOf(entry: unknown, roles: boolean): string | undefined {
  if (typeof entry !== 'string') return undefined;
  if (!roles) return entry;
  return entry.startsWith('@') ? entry.slice(1) : undefined;
}

/**
 * The items with the shown columns that refer to other entities by id (`identityRoles`' `@id` entries, `identityId`,
 * `configs`) showing names instead, `@name` for roles; an id that names nothing (deleted meanwhile) stays as it is.
 */
export async function withNames(client: ManagementClient, items: Record<string, unknown>[], columns: readonly string[], paths: ReadonlySet<string>): Promise<Record<string, unknown>[]> {
  const named = items.map((item) => ({ ...item }));
  for (const column of columns) {
    const reference = referenceOf(column, paths);
    if (!reference) continue;
    const entries = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);
    const ids = new Set(items.flatMap((item) => entries(item[column]).map((e) => idOf(e, reference.roles)).filter((id): id is string => id !== undefined)));
    if (ids.size === 0) continue;
    const names = await namesOf(client, reference.path, [...ids]);
    const shown = (entry: unknown) => {
      const id = idOf(entry, reference.roles);
      const name = id === undefined ? undefined : names.get(id);
      return name === undefined ? entry : `${reference.roles ? '@' : ''}${name}`;
    };
    for (const item of named) {
      const value = item[column];
      if (value !== null && value !== undefined) item[column] = Array.isArray(value) ? value.map(shown) : shown(value);
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

/** Prints a page as printList does, references by name in a table (JSON stays as the controller answered). */
export async function printNamedList(client: ManagementClient, page: Page, columns: readonly string[], json: boolean, out: Output, paths: ReadonlySet<string>): Promise<number> {
  return printList(json ? page : { ...page, items: await withNames(client, page.items, columns, paths) }, columns, json, out);
}
