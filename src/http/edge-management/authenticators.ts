/**
 * Authenticator management operations (`/authenticators`, administrators only): list, read, delete.
 * The view never carries a password or its hash (the response schema declares neither).
 */
import { ApiErrorBody, EmptyEnvelope, Envelope, IdParams, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { AuthenticatorView } from '../schemas/identity.js';
import { actorOf } from '../kit/actor.js';
import { envelope, listEnvelope } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';
import { authenticatorView } from './identity-views.js';

const tags = ['Authenticator'];
const denied = { 401: ApiErrorBody, 403: ApiErrorBody };

export const authenticatorRoutes = [
  defineRoute({
    method: 'GET',
    url: '/authenticators',
    operationId: 'listAuthenticators',
    summary: 'Lists authenticators of every identity',
    tags,
    access: 'admin',
    schema: { querystring: ListQueryParams, response: { 200: ListEnvelope(AuthenticatorView), 400: ApiErrorBody, ...denied } },
    handler: async ({ api, query }) => {
      const page = await api.services.authenticators.list(query);
      return listEnvelope(page.items.map(authenticatorView), page.pagination, page.filterableFields);
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/authenticators/:id',
    operationId: 'detailAuthenticator',
    summary: 'Reads one authenticator',
    tags,
    access: 'admin',
    schema: { params: IdParams, response: { 200: Envelope(AuthenticatorView), ...denied, 404: ApiErrorBody } },
    handler: async ({ api, params }) => envelope(authenticatorView(await api.services.authenticators.get(params.id))),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/authenticators/:id',
    operationId: 'deleteAuthenticator',
    summary: "Deletes an authenticator (not the default admin's updb authenticator)",
    tags,
    access: 'admin',
    schema: { params: IdParams, response: { 200: EmptyEnvelope, 400: ApiErrorBody, ...denied, 404: ApiErrorBody } },
    handler: async ({ api, auth, params }) => {
      await api.services.authenticators.delete(actorOf(auth), params.id);
      return envelope({});
    },
  }),
];
