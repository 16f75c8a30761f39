/**
 * The query parameters of a list operation (`filter`, `sort`, `limit`, `offset`) validated and reduced to one
 * ListQuery. Paging rules (our decision, close to the reference controller's): integers only, default page 10,
 * at most 500 (`-1`/`none` mean the largest page), `skip`/`limit` in the filter win over the parameters.
 */
import { closestMatch } from '../../shared/text-distance.js';
import type { FieldMap, FieldSpec, FilterExpr, SortDirection, SortKey } from './ast.js';
import { UNORDERABLE_TYPES } from './fields.js';
import { paramError, unknownNameHint } from './filter-error.js';
import { parseFilter } from './parser.js';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 500;

export interface RawListParams {
  filter?: string;
  sort?: string;
  limit?: string | number;
  offset?: string | number;
}

export interface ListQuery {
  where: FilterExpr | undefined;
  sort: { field: string; direction: 'asc' | 'desc' }[];
  limit: number;
  offset: number;
}

/**
 * Validates and normalises the query parameters of a list operation. Throws ApiError INVALID_FILTER,
 * INVALID_PAGINATION or INVALID_SORT_IDENTIFIER. The returned sort always ends with `id asc` when the
 * field map has `id` (and the sort does not already use it), so pages are stable.
 *
 * @example parseListParams({ filter: 'name contains "web"', limit: '20' }, fields) // limit 20, offset 0
 */
export function parseListParams(raw: RawListParams, fields: FieldMap, defaultSort?: SortKey | SortKey[]): ListQuery {
  const parsed = raw.filter === undefined ? {} : parseFilter(raw.filter, fields);
  const limit = parsed.limit ?? (raw.limit === undefined ? DEFAULT_PAGE_SIZE : limitParam(raw.limit));
  const offset = parsed.skip ?? (raw.offset === undefined ? 0 : offsetParam(raw.offset));
  const sort = parsed.sort ?? (isBlank(raw.sort) ? defaultSortOf(fields, defaultSort) : sortParam(raw.sort ?? '', fields));
  return { where: parsed.where, sort: withTieBreaker(sort, fields), limit: pageSize(limit), offset };
}

/** The effective page size of a validated limit: `-1`/`none` and anything above the maximum give the maximum. */
function pageSize(limit: number | 'none'): number {
  return limit === 'none' || limit === -1 || limit > MAX_PAGE_SIZE ? MAX_PAGE_SIZE : limit;
}

function limitParam(value: string | number): number {
  const limit = integerParam('limit', value);
  if (limit === 0 || limit < -1) {
    throw paramError('INVALID_PAGINATION', 'limit', value, `must be a positive integer or -1, not ${limit}`);
  }
  return limit;
}

function offsetParam(value: string | number): number {
  const offset = integerParam('offset', value);
  if (offset < 0) throw paramError('INVALID_PAGINATION', 'offset', value, `must be 0 or more, not ${offset}`);
  return offset;
}

/** A whole number written in decimal digits (query strings arrive as text); anything else is refused. */
function integerParam(name: string, value: string | number): number {
  const number = typeof value === 'number' ? value : /^\s*-?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number)) {
    throw paramError('INVALID_PAGINATION', name, value, `expected an integer, got '${String(value)}'`);
  }
  return number;
}

function isBlank(value: string | undefined): boolean {
  return value === undefined || value.trim() === '';
}

/** The `sort` parameter: `field [asc|desc], ...`. */
function sortParam(value: string, fields: FieldMap): SortKey[] {
  return value.split(',').map((item) => {
    const words = item.trim().split(/\s+/);
    const [field = '', direction = 'asc', extra] = words;
    if (field === '' || extra !== undefined) {
      throw paramError('INVALID_SORT_IDENTIFIER', 'sort', value, `'${item.trim()}' is not of the form 'field [asc|desc]'`);
    }
    if (!Object.hasOwn(fields, field)) {
      const known = Object.keys(fields);
      const hint = unknownNameHint(closestMatch(field, known), known);
      throw paramError('INVALID_SORT_IDENTIFIER', 'sort', value, `unknown sort field '${field}'`, hint);
    }
    if (UNORDERABLE_TYPES.has((fields[field] as FieldSpec).type)) {
      throw paramError('INVALID_SORT_IDENTIFIER', 'sort', value, `cannot sort by '${field}'`, 'a set of values or tags have no single value to order by');
    }
    const lower = direction.toLowerCase();
    if (lower !== 'asc' && lower !== 'desc') {
      throw paramError('INVALID_SORT_IDENTIFIER', 'sort', value, `unknown sort direction '${direction}' for '${field}'`, 'asc or desc');
    }
    return { field, direction: lower as SortDirection };
  });
}

function defaultSortOf(fields: FieldMap, defaultSort: SortKey | SortKey[] | undefined): SortKey[] {
  if (defaultSort) {
    const keys = Array.isArray(defaultSort) ? defaultSort : [defaultSort];
    // A wrong default is a programming error in the caller, not a client mistake.
    for (const key of keys) if (!Object.hasOwn(fields, key.field)) throw new Error(`default sort field '${key.field}' is not in the field map`);
    return keys;
  }
  if (Object.hasOwn(fields, 'createdAt')) return [{ field: 'createdAt', direction: 'asc' }];
  return [];
}

/**
 * The sort keys without repeats, then `id asc` so rows with equal sort values keep one order from page to page. A field
 * named again later cannot change the order (rows it would separate were already told apart by its first use), so
 * repeats are dropped rather than handed to the database: `sort=name,name,…` would otherwise give thousands of keys.
 */
function withTieBreaker(sort: SortKey[], fields: FieldMap): SortKey[] {
  const keys: SortKey[] = [];
  const named = new Set<string>();
  for (const key of sort) {
    if (named.has(key.field)) continue;
    named.add(key.field);
    keys.push({ ...key });
  }
  if (Object.hasOwn(fields, 'id') && !named.has('id')) keys.push({ field: 'id', direction: 'asc' });
  return keys;
}
