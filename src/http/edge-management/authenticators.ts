/**
 * Authenticator management operations (`/authenticators`, administrators only): list, read, delete, and re-enroll
 * (the authenticator becomes a pending enrollment of the matching method, in one unit of work).
 * The view never carries a password or its hash (the response schema declares neither).
 */
import { Type } from 'typebox';
import { ApiErrorBody, CreatedEnvelope, EmptyEnvelope, Envelope, IdParams, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { AuthenticatorView } from '../schemas/identity.js';
import { actorOf } from '../kit/actor.js';
import { envelope, listEnvelope, selfLink } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';
import { authenticatorView } from './identity-views.js';

const tags = ['Authenticator'];
const denied = { 401: ApiErrorBody, 403: ApiErrorBody };

const ReEnrollBody = Type.Object(
  { expiresAt: Type.String({ format: 'date-time', description: "RFC 3339; must be in the future: when the new enrollment's token stops working" }) },
  { additionalProperties: false },
);

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
  defineRoute({
    method: 'POST',
    url: '/authenticators/:id/re-enroll',
    operationId: 'reEnrollAuthenticator',
    summary: 'Replaces an authenticator with a pending enrollment for the same identity (updb keeps its username; cert becomes ott), in one unit of work',
    tags,
    access: 'admin',
    uses: ['authenticators'],
    status: 201,
    schema: { params: IdParams, body: ReEnrollBody, response: { 201: CreatedEnvelope, 400: ApiErrorBody, ...denied, 404: ApiErrorBody, 409: ApiErrorBody } },
    handler: async ({ domains, auth, params, body }) => {
      const enrollment = await domains.authenticators.reEnroll(actorOf(auth), params.id, new Date(body.expiresAt));
      return envelope({ id: enrollment.id, _links: selfLink('enrollments', enrollment.id) });
    },
  }),
];
