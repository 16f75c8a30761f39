/**
 * `GET /identity-types` and `/identity-types/{id}` (administrators): the types an identity may have, as the
 * reference serves them and as an identity's `type` links to them (`./identity-types/<id>`).
 */
import { Type } from 'typebox';
import { createIdentityTypeService, type IdentityType } from '../../services/identities/identity-types.js';
import { ApiErrorBody, DateTime, Envelope, IdParams, Links, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { Tags } from '../schemas/identity.js';
import { envelope, listEnvelope, selfLink } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';

const tags = ['Identity'];
const denied = { 401: ApiErrorBody, 403: ApiErrorBody };

const IdentityTypeView = Type.Object({ id: Type.String(), name: Type.String(), createdAt: DateTime, updatedAt: DateTime, tags: Tags, _links: Links });

// The types are part of the controller, not data: they exist since it started.
const types = createIdentityTypeService();
const since = new Date().toISOString();

function identityTypeView(type: IdentityType) {
  return { id: type.id, name: type.name, createdAt: since, updatedAt: since, tags: {}, _links: selfLink('identity-types', type.id) };
}

export const identityTypeRoutes = [
  defineRoute({
    method: 'GET',
    url: '/identity-types',
    operationId: 'listIdentityTypes',
    summary: 'Lists the identity types (User, Device, Service, Router, Default); filter, sort and paging as for any list',
    tags,
    access: 'admin',
    uses: [],
    schema: { querystring: ListQueryParams, response: { 200: ListEnvelope(IdentityTypeView), 400: ApiErrorBody, ...denied } },
    handler: ({ query }) => {
      const page = types.list(query);
      return listEnvelope(page.items.map(identityTypeView), page.pagination, page.filterableFields);
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/identity-types/:id',
    operationId: 'detailIdentityType',
    summary: 'Reads one identity type by id (its name)',
    tags,
    access: 'admin',
    uses: [],
    schema: { params: IdParams, response: { 200: Envelope(IdentityTypeView), ...denied, 404: ApiErrorBody } },
    handler: ({ params }) => envelope(identityTypeView(types.detail(params.id))),
  }),
];
