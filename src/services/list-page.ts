/** One page of a list operation, with what the `meta` of a list response needs. */
export interface ListPage<T> {
  items: T[];
  pagination: { limit: number; offset: number; totalCount: number };
  filterableFields: string[];
}

/** The list parameters as a request gives them, for adapters that must not reach into persistence. */
export type { RawListParams } from '../persistence/query/list-query.js';
