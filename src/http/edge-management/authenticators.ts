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
    uses: ['authenticators'],
    schema: { querystring: ListQueryParams, response: { 200: ListEnvelope(AuthenticatorView), 400: ApiErrorBody, ...denied } },
    handler: async ({ domains, query }) => {
      const page = await domains.authenticators.list(query);
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
    uses: ['authenticators'],
    schema: { params: IdParams, response: { 200: Envelope(AuthenticatorView), ...denied, 404: ApiErrorBody } },
    handler: async ({ domains, params }) => envelope(authenticatorView(await domains.authenticators.get(params.id))),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/authenticators/:id',
    operationId: 'deleteAuthenticator',
    summary: "Deletes an authenticator (not the default admin's updb authenticator)",
    tags,
    access: 'admin',
    uses: ['authenticators'],
    schema: { params: IdParams, response: { 200: EmptyEnvelope, 400: ApiErrorBody, ...denied, 404: ApiErrorBody } },
    handler: async ({ domains, auth, params }) => {
      await domains.authenticators.delete(actorOf(auth), params.id);
      return envelope({});
    },
  }),
];
