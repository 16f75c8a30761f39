/**
 * Schemas shared by both Edge APIs: the envelope, meta, the error body, links and list parameters.
 * Response schemas double as output filters: a field not declared here is never sent.
 */
import { Type, type TSchema } from 'typebox';

export const Meta = Type.Object({}, { additionalProperties: true, description: 'Response metadata' });

export const Links = Type.Record(
  Type.String(),
  Type.Object({ href: Type.String(), method: Type.Optional(Type.String()), comment: Type.Optional(Type.String()) }),
);

export const Pagination = Type.Object({ limit: Type.Integer(), offset: Type.Integer(), totalCount: Type.Integer() });

export const ListMeta = Type.Object({ pagination: Pagination, filterableFields: Type.Array(Type.String()) });

/** `{data, meta}` around a detail. */
export function Envelope(data: TSchema) {
  return Type.Object({ data, meta: Meta });
}

/** `{data: [...], meta: {pagination, filterableFields}}` around a list. */
export function ListEnvelope(item: TSchema) {
  return Type.Object({ data: Type.Array(item), meta: ListMeta });
}

export const EmptyEnvelope = Envelope(Type.Object({}));

/** `{data: {id, _links}, meta}`: the answer of a create (HTTP 201). */
export const CreatedEnvelope = Envelope(Type.Object({ id: Type.String(), _links: Links }));

export const ApiErrorBody = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    requestId: Type.String(),
    cause: Type.Optional(Type.Object({}, { additionalProperties: true })),
  }),
  meta: Meta,
});

/** `limit`, `offset`, `filter`, `sort`: the list parameters (strings here; the list-query parser checks them). */
export const ListQueryParams = Type.Object({
  limit: Type.Optional(Type.String({ description: 'page size, 1..500 (default 10)' })),
  offset: Type.Optional(Type.String({ description: 'rows to skip (default 0)' })),
  filter: Type.Optional(Type.String({ description: 'filter expression, e.g. name contains "x" sort by name limit 5' })),
  sort: Type.Optional(Type.String({ description: 'field [asc|desc], ...' })),
});

export const IdParams = Type.Object({ id: Type.String({ minLength: 1 }) });

export const DateTime = Type.String({ format: 'date-time' });
