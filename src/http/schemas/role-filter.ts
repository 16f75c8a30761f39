/**
 * The query parameters of the management lists that select by roles (reference listServices, listIdentities,
 * listEdgeRouters, listPostureChecks): the list parameters and `roleFilter` (repeatable: `?roleFilter=%23web&roleFilter=%40<id>`)
 * with `roleSemantic`. The role expressions are judged by the service (services/role-filter.ts), which names the
 * offending entry.
 */
import { Type } from 'typebox';
import { ListQueryParams } from './common.js';

const Role = Type.String({ description: "a role: '#attribute', '@id' or '#all'" });

/** `roleFilter` and `roleSemantic`, for list parameter schemas to spread in. */
export const RoleFilterParams = {
  roleFilter: Type.Optional(
    Type.Union([Role, Type.Array(Role)], { description: 'roles the listed entities must match (repeat the parameter for more than one); # is sent as %23' }),
  ),
  roleSemantic: Type.Optional(
    Type.String({ description: "how the roleFilter attributes combine: 'AllOf' (default, every attribute) or 'AnyOf' (at least one); @ids always match" }),
  ),
};

export const RoleFilterListParams = Type.Object({ ...ListQueryParams.properties, ...RoleFilterParams });
