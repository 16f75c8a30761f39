/**
 * Identity management operations (`/identities`, administrators only): list, create (optionally with
 * enrollments), read, replace, patch, delete, disable, enable, and the identity's authenticators.
 */
import { ApiErrorBody, EmptyEnvelope, Envelope, IdParams, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import {
  AuthenticatorView,
  CreatedEnvelope,
  IdentityCreateBody,
  IdentityDetail,
  IdentityDisableBody,
  IdentityPatchBody,
  IdentityUpdateBody,
} from '../schemas/identity.js';
import { actorOf } from '../kit/actor.js';
import { envelope, listEnvelope, selfLink } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';
import { authenticatorView, identityDetailView } from './identity-views.js';

const tags = ['Identity'];
const denied = { 401: ApiErrorBody, 403: ApiErrorBody };
const mutation = { 200: EmptyEnvelope, 400: ApiErrorBody, ...denied, 404: ApiErrorBody };

export const identityRoutes = [
  defineRoute({
    method: 'GET',
    url: '/identities',
    operationId: 'listIdentities',
    summary: 'Lists identities, each as its detail shows it',
    tags,
    access: 'admin',
    schema: { querystring: ListQueryParams, response: { 200: ListEnvelope(IdentityDetail), 400: ApiErrorBody, ...denied } },
    handler: async ({ api, query }) => {
      const page = await api.services.identities.list(query);
      return listEnvelope(page.items.map(identityDetailView), page.pagination, page.filterableFields);
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/identities',
    operationId: 'createIdentity',
    summary: 'Creates an identity, with an ott and/or updb enrollment when asked',
    tags,
    access: 'admin',
    status: 201,
    schema: { body: IdentityCreateBody, response: { 201: CreatedEnvelope, 400: ApiErrorBody, ...denied, 409: ApiErrorBody } },
    handler: async ({ api, auth, body }) => {
      const identity = await api.services.identities.create(actorOf(auth), body);
      return envelope({ id: identity.id, _links: selfLink('identities', identity.id) });
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/identities/:id',
    operationId: 'detailIdentity',
    summary: 'Reads one identity with its authenticators and pending enrollments',
    tags,
    access: 'admin',
    schema: { params: IdParams, response: { 200: Envelope(IdentityDetail), ...denied, 404: ApiErrorBody } },
    handler: async ({ api, params }) => envelope(identityDetailView(await api.services.identities.get(params.id))),
  }),
  defineRoute({
    method: 'PUT',
    url: '/identities/:id',
    operationId: 'updateIdentity',
    summary: 'Replaces an identity: name, type and isAdmin are required, absent fields return to their defaults',
    tags,
    access: 'admin',
    schema: { params: IdParams, body: IdentityUpdateBody, response: mutation },
    handler: async ({ api, auth, params, body }) => {
      await api.services.identities.replace(actorOf(auth), params.id, body);
      return envelope({});
    },
  }),
  defineRoute({
    method: 'PATCH',
    url: '/identities/:id',
    operationId: 'patchIdentity',
    summary: 'Changes the given fields of an identity',
    tags,
    access: 'admin',
    schema: { params: IdParams, body: IdentityPatchBody, response: mutation },
    handler: async ({ api, auth, params, body }) => {
      await api.services.identities.patch(actorOf(auth), params.id, body);
      return envelope({});
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: '/identities/:id',
    operationId: 'deleteIdentity',
    summary: 'Deletes an identity with its authenticators, API sessions and enrollments (not the default admin)',
    tags,
    access: 'admin',
    schema: { params: IdParams, response: mutation },
    handler: async ({ api, auth, params }) => {
      await api.services.identities.delete(actorOf(auth), params.id);
      return envelope({});
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/identities/:id/disable',
    operationId: 'disableIdentity',
    summary: 'Disables an identity for durationMinutes (0 = until enabled); not the default admin',
    tags,
    access: 'admin',
    schema: { params: IdParams, body: IdentityDisableBody, response: mutation },
    handler: async ({ api, auth, params, body }) => {
      await api.services.identities.disable(actorOf(auth), params.id, body.durationMinutes);
      return envelope({});
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/identities/:id/enable',
    operationId: 'enableIdentity',
    summary: 'Enables a disabled identity and ends its password lockouts',
    tags,
    access: 'admin',
    schema: { params: IdParams, response: mutation },
    handler: async ({ api, auth, params }) => {
      await api.services.identities.enable(actorOf(auth), params.id);
      return envelope({});
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: '/identities/:id/mfa',
    operationId: 'removeIdentityMfa',
    summary: "Removes an identity's TOTP enrollment (pending or verified), e.g. after the user lost the device",
    tags,
    access: 'admin',
    schema: { params: IdParams, response: mutation },
    handler: async ({ api, auth, params }) => {
      await api.services.mfa.removeByAdmin(params.id, actorOf(auth));
      return envelope({});
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/identities/:id/authenticators',
    operationId: 'listIdentityAuthenticators',
    summary: 'Lists the authenticators of an identity',
    tags,
    access: 'admin',
    schema: { params: IdParams, querystring: ListQueryParams, response: { 200: ListEnvelope(AuthenticatorView), 400: ApiErrorBody, ...denied, 404: ApiErrorBody } },
    handler: async ({ api, params, query }) => {
      const page = await api.services.authenticators.listForIdentity(params.id, query);
      return listEnvelope(page.items.map(authenticatorView), page.pagination, page.filterableFields);
    },
  }),
];
