/**
 * Lists of one resource seen from another (`/services/{id}/configs`, `/configs/{id}/services`,
 * `/config-types/{id}/configs`): the client's own filter, sort and paging, within the members of the parent.
 */
import type { FilterExpr } from '../../persistence/query/list-query.js';
import { parseListParams, type FieldMap, type ListQuery, type RawListParams } from '../../persistence/query/list-query.js';
import type { ListPage } from '../list-page.js';

/**
 * One page of `list` under the client's parameters and `within` (e.g. `configTypeId = X`, or `id in [...]`).
 *
 * @example return relatedPage(params, CONFIG_FIELDS, { kind: 'in', field: 'id', values: ids }, (q) => configs.list(q));
 */
export async function relatedPage<T>(
  params: RawListParams,
  fields: FieldMap,
  within: FilterExpr,
  list: (query: ListQuery) => Promise<{ items: T[]; totalCount: number }>,
): Promise<ListPage<T>> {
  const query = parseListParams(params, fields);
  const where: FilterExpr = query.where ? { kind: 'and', operands: [within, query.where] } : within;
  const { items, totalCount } = await list({ ...query, where });
  return { items, pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields: Object.keys(fields) };
}

/** `id in ids`, or a filter nothing matches when `ids` is empty. */
export function idIn(ids: readonly string[]): FilterExpr {
  return ids.length === 0 ? { kind: 'constant', value: false } : { kind: 'in', field: 'id', values: [...ids] };
}
