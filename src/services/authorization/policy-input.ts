/**
 * What the three kinds of policy share on the way in and out: their role lists checked (400 naming the list and the
 * index, e.g. `identityRoles[2]`), the `@id`s they name checked against the entity tables (400
 * REFERENCED_ENTITY_NOT_FOUND naming the list), and the `…RolesDisplay` of a detail (reference `namedRole`: an `@id`
 * shown with its entity's name, an attribute as itself).
 */
import type { NamedRole, PolicySide, RoleTarget, Semantic } from '../../domain/policy.js';
import { ApiError } from '../../errors/api-error.js';
import type { PolicyEngineStore } from '../../persistence/repositories/policy-engine.js';
import { parseRoles, roleListProblem } from '../../policy/roles.js';
import type { ListPage, RawListParams } from '../list-page.js';
import type { ResourceService } from '../resource-service.js';

/** One role list of a policy kind: its field, and the entity type its `@id`s name. */
export interface RoleField<K extends string = string> {
  key: K;
  side: PolicySide & RoleTarget;
}

/** `…RolesDisplay` by role field, e.g. `{ identityRoles: [{ role: '@x', name: '@alice' }] }`. */
export type RolesDisplay = Record<string, NamedRole[]>;

/** A policy with the names of what its roles name, as details and lists show it. */
export type Displayed<P> = P & { rolesDisplay: RolesDisplay };

/** A policy kind's operations: the resource kit's, with reads that carry the roles' display. */
export interface PolicyService<P, Input, Patch> extends Omit<ResourceService<P, Input, Patch>, 'list' | 'get'> {
  list(params: RawListParams): Promise<ListPage<Displayed<P>>>;
  /** 404 NOT_FOUND when `id` is unknown. */
  get(id: string): Promise<Displayed<P>>;
  /** The policies of this kind that apply to entity `id` of type `target` (the engine's answer), one page; 404 for an unknown entity. */
  appliesTo(target: RoleTarget, id: string, params: RawListParams): Promise<ListPage<Displayed<P>>>;
}

/** The fields a patch gives: an absent (or undefined) field leaves the current value. */
export function definedOf<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** The role list `key` of a policy or input. */
const rolesIn = (policy: object, key: string): string[] => (policy as Record<string, string[]>)[key] ?? [];

/** The semantic of an input: `AllOf` unless given (reference facts A1). */
export const semanticOf = (semantic: Semantic | undefined): Semantic => semantic ?? 'AllOf';

/**
 * 400 COULD_NOT_VALIDATE naming `<field>[<index>]` for the first malformed role of any list (policy/roles.ts); the
 * roles `current` already holds in that list are not judged again.
 */
export function checkRoleLists(policy: object, fields: readonly RoleField[], current?: object): void {
  for (const { key } of fields) {
    const roles = rolesIn(policy, key) as readonly unknown[];
    const problem = roleListProblem(roles, current ? rolesIn(current, key) : []);
    if (!problem) continue;
    const field = `${key}[${problem.index}]`;
    throw new ApiError('COULD_NOT_VALIDATE', {
      message: `The request is invalid: ${field} ${problem.reason}`,
      cause: { field, reason: problem.reason, value: roles[problem.index] ?? null },
    });
  }
}

/**
 * 400 REFERENCED_ENTITY_NOT_FOUND naming the list when an `@id` names no entity of its type. Ids `current` already
 * names are not checked again: a policy naming an entity deleted since stays editable (the engine skips such ids).
 */
export async function requireKnownIds(
  store: Pick<PolicyEngineStore, 'existingIds'>,
  policy: object,
  fields: readonly RoleField[],
  current?: object,
): Promise<void> {
  for (const { key, side } of fields) {
    const before = new Set(current ? parseRoles(rolesIn(current, key)).ids : []);
    const named = parseRoles(rolesIn(policy, key)).ids.filter((id) => !before.has(id));
    const known = await store.existingIds(side, named);
    const missing = named.find((id) => !known.has(id));
    if (missing === undefined) continue;
    throw new ApiError('REFERENCED_ENTITY_NOT_FOUND', {
      message: `${key} names '@${missing}', but no ${side.replace('-', ' ')} has that id`,
      cause: { field: key, reason: 'does not exist', value: `@${missing}` },
    });
  }
}

/** The policies with their roles' display, the names read once per entity type for the whole batch. */
export async function withDisplay<P extends object>(
  store: Pick<PolicyEngineStore, 'namesByIds'>,
  policies: readonly P[],
  fields: readonly RoleField[],
): Promise<Displayed<P>[]> {
  const names = new Map<RoleTarget, Map<string, string>>();
  for (const { key, side } of fields) {
    const ids = policies.flatMap((policy) => parseRoles(rolesIn(policy, key)).ids);
    const known = names.get(side) ?? new Map<string, string>();
    for (const [id, name] of await store.namesByIds(side, ids.filter((id) => !known.has(id)))) known.set(id, name);
    names.set(side, known);
  }
  return policies.map((policy) => {
    const rolesDisplay: RolesDisplay = {};
    for (const { key, side } of fields) {
      rolesDisplay[key] = rolesIn(policy, key).map((role) => {
        // An `@id` whose entity is gone shows its id: the role still stands as written.
        const name = role.startsWith('@') ? names.get(side)?.get(role.slice(1)) : undefined;
        return { role, name: name === undefined ? role : `@${name}` };
      });
    }
    return { ...policy, rolesDisplay };
  });
}

/** A page of policies with their display. */
export async function pageWithDisplay<P extends object>(
  store: Pick<PolicyEngineStore, 'namesByIds'>,
  page: ListPage<P>,
  fields: readonly RoleField[],
): Promise<ListPage<Displayed<P>>> {
  return { ...page, items: await withDisplay(store, page.items, fields) };
}

/** The kit's operations with reads that carry the display, and the engine's answer of which policies apply to an entity. */
export function displayed<P extends object, Input, Patch>(
  store: Pick<PolicyEngineStore, 'namesByIds'>,
  fields: readonly RoleField[],
  service: ResourceService<P, Input, Patch>,
  appliesTo: (target: RoleTarget, id: string, params: RawListParams) => Promise<ListPage<P>>,
): PolicyService<P, Input, Patch> {
  return {
    ...service,
    appliesTo: async (target, id, params) => pageWithDisplay(store, await appliesTo(target, id, params), fields),
    list: async (params) => pageWithDisplay(store, await service.list(params), fields),
    get: async (id) => (await withDisplay(store, [await service.get(id)], fields))[0] as Displayed<P>,
  };
}
