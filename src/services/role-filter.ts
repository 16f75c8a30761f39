/**
 * The `roleFilter` and `roleSemantic` list parameters of the management API (reference listServices, listIdentities,
 * listEdgeRouters, listPostureChecks; docs/decisions/0030-role-filters-and-client-routers.md): the entities a role
 * list would select, as if it were one side of a policy. The roles are checked with the same rules as a policy's
 * (policy/roles.ts) and select exactly what `matchesRoles` would; the selection becomes one SQL condition through the
 * policy engine's `membershipCondition` over the `entity_attributes` index, so no list reads every entity to decide.
 */
import type { RoleTarget } from '../domain/policy.js';
import type { ListRestriction } from '../persistence/query/list-query.js';
import { paramError } from '../persistence/query/filter-error.js';
import { membershipCondition, type Membership } from '../persistence/repositories/policy-engine.js';
import { parseRoles, roleListProblem, SEMANTICS, type ParsedRoles, type Semantic } from '../policy/roles.js';

/** The two parameters as a query string gives them: a repeated `roleFilter` arrives as an array, a single one as a string. */
export interface RoleFilterParams {
  roleFilter?: string | readonly string[];
  roleSemantic?: string;
}

/** A validated role filter. */
export interface RoleFilter {
  roles: ParsedRoles;
  semantic: Semantic;
}

/**
 * The role filter the parameters give, or undefined when `roleFilter` is absent or empty (no restriction).
 * 400 INVALID_FILTER naming `roleFilter` (with the entry's index) for an entry that is not a role expression, and
 * naming `roleSemantic` for a semantic other than `AllOf` (the default) or `AnyOf`.
 *
 * @example roleFilterOf({ roleFilter: ['#web', '#eu'], roleSemantic: 'AllOf' }) // holders of both attributes
 */
export function roleFilterOf(params: RoleFilterParams): RoleFilter | undefined {
  const semantic = params.roleSemantic ?? 'AllOf';
  if (!(SEMANTICS as readonly string[]).includes(semantic)) {
    throw paramError('INVALID_FILTER', 'roleSemantic', semantic, `must be one of ${SEMANTICS.join(', ')}, not '${semantic}'`);
  }
  const raw = params.roleFilter;
  const roles: readonly string[] = raw === undefined ? [] : typeof raw === 'string' ? [raw] : raw;
  if (roles.length === 0) return undefined;
  const problem = roleListProblem(roles);
  if (problem) {
    const value = roles[problem.index];
    throw paramError('INVALID_FILTER', 'roleFilter', value, `entry ${problem.index} ${problem.reason}`);
  }
  return { roles: parseRoles(roles), semantic: semantic as Semantic };
}

/**
 * The entities `filter` selects, as the engine's membership: every entity for `#all`; otherwise the named ids, and
 * the holders of any of the attributes (`AnyOf`, or a single attribute) or of all of them (`AllOf`). It is the rule
 * of `matchesRoles` for one role list, written as data.
 */
export function roleFilterMembership(filter: RoleFilter): Membership {
  const { roles, semantic } = filter;
  if (roles.all) return { all: true, ids: [], anyOf: [], allOf: [] };
  const anyOf = semantic === 'AnyOf' || roles.attributes.length === 1;
  return {
    all: false,
    ids: [...roles.ids],
    anyOf: anyOf ? [...roles.attributes] : [],
    allOf: anyOf || roles.attributes.length === 0 ? [] : [[...new Set(roles.attributes)].sort()],
  };
}

/**
 * The SQL restriction of a list of `target` entities under the parameters' role filter, or undefined when there is
 * none (or it is `#all`). Throws as `roleFilterOf` does.
 */
export function roleFilterRestriction(target: RoleTarget, params: RoleFilterParams): ListRestriction | undefined {
  const filter = roleFilterOf(params);
  if (!filter || filter.roles.all) return undefined;
  return membershipCondition(target, roleFilterMembership(filter));
}
