/**
 * The identity types (`/identity-types` of the Management API): a fixed list, served with the list parameters of any
 * other list so that tools treat it like the rest. The reference's identity detail links its `type` here.
 */
import { IDENTITY_TYPES, type IdentityTypeId } from '../../domain/identity.js';
import { ApiError } from '../../errors/api-error.js';
import { listInMemory } from '../../persistence/query/evaluate.js';
import { parseListParams, type FieldMap, type RawListParams } from '../../persistence/query/list-query.js';
import type { ListPage } from '../list-page.js';

export interface IdentityType {
  id: IdentityTypeId;
  name: IdentityTypeId;
}

export interface IdentityTypeService {
  /** One page of identity types; throws INVALID_FILTER / INVALID_PAGINATION / INVALID_SORT_IDENTIFIER. */
  list(params: RawListParams): ListPage<IdentityType>;
  /** One type by id (its name); NOT_FOUND names the types there are. */
  detail(id: string): IdentityType;
}

// Columns are unused in memory; the map names the fields a filter or sort may use, as for a stored list.
const IDENTITY_TYPE_FIELDS: FieldMap = { id: { column: 'id', type: 'string' }, name: { column: 'name', type: 'string' } };

const TYPES: readonly IdentityType[] = IDENTITY_TYPES.map((id) => ({ id, name: id }));

export function createIdentityTypeService(): IdentityTypeService {
  const filterableFields = Object.keys(IDENTITY_TYPE_FIELDS);
  return {
    list(params) {
      const query = parseListParams(params, IDENTITY_TYPE_FIELDS);
      const { items, totalCount } = listInMemory(TYPES, query, (type) => ({ id: type.id, name: type.name }));
      return { items, pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields };
    },
    detail(id) {
      const found = TYPES.find((type) => type.id === id);
      if (!found) throw new ApiError('NOT_FOUND', { message: `No identity type '${id}'; the types are ${IDENTITY_TYPES.join(', ')}` });
      return found;
    },
  };
}
