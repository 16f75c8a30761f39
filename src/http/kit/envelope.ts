/**
 * The `{data, meta}` envelope of every JSON success response of the Edge APIs (spec: Response envelope),
 * and the `_links` helpers that go with created and listed entities.
 */
export interface Pagination {
  limit: number;
  offset: number;
  totalCount: number;
}

/** A detail or action response. */
export function envelope<T>(data: T, meta: Record<string, unknown> = {}): { data: T; meta: Record<string, unknown> } {
  return { data, meta };
}

/** A list response with its pagination and the fields a filter may name. */
export function listEnvelope<T>(data: T[], pagination: Pagination, filterableFields: string[]) {
  return { data, meta: { pagination, filterableFields } };
}

/** `{self: {href}}` for an entity of a collection, relative as in the reference API (`./identities/<id>`). */
export function selfLink(collection: string, id: string): { self: { href: string } } {
  return { self: { href: `./${collection}/${id}` } };
}
