/**
 * Role expressions of policies (issue 14; reference facts A2), as pure functions: what a role list may hold, and
 * whether an entity matches one. A role is `#all`, `#<attribute>` or `@<id>`; `#all` stands alone; `@` names one
 * entity by id. An entity matches a role list when its id is named, or the list is `#all`, or — for the attribute
 * roles — it has all of them (`AllOf`) or any of them (`AnyOf`). The semantic applies to attribute roles only: named
 * ids always match. An empty list matches nothing.
 *
 * This is the one definition of a match. The policy engine's store queries select candidates with indexes and
 * then decide with `matchesRoles`, and the tests' brute-force evaluation uses it on every pair.
 */
import { unambiguousTextProblem } from './names.js';

export const SEMANTICS = ['AllOf', 'AnyOf'] as const;
export type Semantic = (typeof SEMANTICS)[number];

/** A role list split by kind. */
export interface ParsedRoles {
  all: boolean;
  attributes: string[];
  ids: string[];
}

/** What an entity offers to a match: its id and role attributes. */
export interface RoleHolder {
  id: string;
  roleAttributes: readonly string[];
}

export const MAX_ROLES = 256;
const MAX_ROLE_LENGTH = 255;

/** Why `role` is not a role expression, or undefined when it is one. */
export function roleProblem(role: unknown): string | undefined {
  if (typeof role !== 'string') return 'must be a string';
  if (role.length < 2) return "must be '#' or '@' followed by at least one character";
  if (role.length > MAX_ROLE_LENGTH) return `must be at most ${MAX_ROLE_LENGTH} characters`;
  if (role[0] !== '#' && role[0] !== '@') return "must start with '#' (a role attribute) or '@' (an entity id)";
  // The attribute a `#` role names follows the attributes' own rules, or it could never match one (decision 0059).
  if (role[0] === '#') return unambiguousTextProblem(role.slice(1), 1);
  if (/\s/.test(role[1] as string) || /\s$/.test(role)) return 'must not start or end with white space after its prefix';
  return undefined;
}

/**
 * The problem with a role list as a whole, with the index of the offending entry, or undefined.
 * `#all` must be the only entry; entries must not repeat. Roles in `kept` (what a policy already holds) are not judged
 * again: stored before the rules of decision 0059, they stay valid while they stay.
 */
export function roleListProblem(roles: readonly unknown[], kept: readonly string[] = []): { index: number; reason: string } | undefined {
  if (roles.length > MAX_ROLES) return { index: MAX_ROLES, reason: `must hold at most ${MAX_ROLES} roles` };
  const seen = new Map<string, number>();
  for (const [index, role] of roles.entries()) {
    const problem = kept.includes(role as string) ? undefined : roleProblem(role);
    if (problem) return { index, reason: problem };
    if (role === '#all' && roles.length > 1) return { index, reason: "'#all' must be the only role when given" };
    const earlier = seen.get(role as string);
    if (earlier !== undefined) return { index, reason: `repeats the role at index ${earlier}` };
    seen.set(role as string, index);
  }
  return undefined;
}

/** Why `attribute` cannot be an entity's role attribute, or undefined. */
export function roleAttributeProblem(attribute: string): string | undefined {
  if (attribute.length === 0) return 'must not be empty';
  if (attribute.length > MAX_ROLE_LENGTH) return `must be at most ${MAX_ROLE_LENGTH} characters`;
  if (attribute[0] === '#' || attribute[0] === '@') return "must not start with '#' or '@' (those mark roles in policies, not attributes)";
  // `#all` in a policy means every entity; an attribute of that name could never be told apart from it.
  if (attribute === 'all') return "must not be 'all' (policies use '#all' for every entity)";
  return unambiguousTextProblem(attribute);
}

/**
 * The first problem of an entity's role attribute list, with its index, or undefined: an attribute `roleAttributeProblem`
 * refuses, or one given twice. Attributes in `kept` (what the entity already holds) are not judged again: stored before
 * these rules, they stay valid while they stay (decision 0059).
 */
export function roleAttributeListProblem(attributes: readonly string[], kept: readonly string[] = []): { index: number; reason: string } | undefined {
  const seen = new Map<string, number>();
  for (const [index, attribute] of attributes.entries()) {
    const reason = kept.includes(attribute) ? undefined : roleAttributeProblem(attribute);
    if (reason) return { index, reason };
    const earlier = seen.get(attribute);
    if (earlier !== undefined) return { index, reason: `repeats the attribute at index ${earlier}` };
    seen.set(attribute, index);
  }
  return undefined;
}

/** Splits a (valid) role list by kind. */
export function parseRoles(roles: readonly string[]): ParsedRoles {
  const parsed: ParsedRoles = { all: false, attributes: [], ids: [] };
  for (const role of roles) {
    const value = role.slice(1);
    if (role === '#all') parsed.all = true;
    else if (role[0] === '#') parsed.attributes.push(value);
    else parsed.ids.push(value);
  }
  return parsed;
}

/** Whether `entity` matches `roles` under `semantic` (reference facts A2). */
export function matchesRoles(roles: ParsedRoles, semantic: Semantic, entity: RoleHolder): boolean {
  if (roles.all) return true;
  if (roles.ids.includes(entity.id)) return true;
  if (roles.attributes.length === 0) return false;
  const held = entity.roleAttributes;
  return semantic === 'AllOf' ? roles.attributes.every((a) => held.includes(a)) : roles.attributes.some((a) => held.includes(a));
}
