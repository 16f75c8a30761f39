/** One page of a list operation, with what the `meta` of a list response needs. */
export interface ListPage<T> {
  items: T[];
  pagination: { limit: number; offset: number; totalCount: number };
  filterableFields: string[];
}
