/**
 * Identity management operations (`/identities`, administrators only): list, create (optionally with
 * enrollments), read, replace, patch, delete, disable, enable, and the identity's authenticators.
 */
import { ApiErrorBody, EmptyEnvelope, IdParams, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import {
  AuthenticatorView,
  IdentityCreateBody,
  IdentityDetail,
  IdentityDisableBody,
  IdentityPatchBody,
  IdentityUpdateBody,
} from '../schemas/identity.js';
import { actorOf } from '../kit/actor.js';
import { envelope, listEnvelope } from '../kit/envelope.js';
import { resourceRoutes } from '../kit/resource-routes.js';
import { defineRoute } from '../kit/route.js';
import { authenticatorView, identityDetailView } from './identity-views.js';
import { RoleFilterListParams } from '../schemas/role-filter.js';

const tags = ['Identity'];
const denied = { 401: ApiErrorBody, 403: ApiErrorBody };
const mutation = { 200: EmptyEnvelope, 400: ApiErrorBody, ...denied, 404: ApiErrorBody };

const identities = resourceRoutes({
  collection: 'identities',
  tags,
  uses: 'identities',
  service: (domains) => domains.identities,
  view: identityDetailView,
  itemSchema: IdentityDetail,
});

export const identityRoutes = [
  identities.list({ operationId: 'listIdentities', summary: 'Lists identities, each as its detail shows it; roleFilter/roleSemantic select by roles', querystring: RoleFilterListParams }),
  identities.create({ operationId: 'createIdentity', summary: 'Creates an identity, with an ott and/or updb enrollment when asked', body: IdentityCreateBody, responses: { 409: ApiErrorBody } }),
  identities.detail({ operationId: 'detailIdentity', summary: 'Reads one identity with its authenticators and pending enrollments' }),
  identities.replace({
    operationId: 'updateIdentity',
    summary: 'Replaces an identity: name, type and isAdmin are required, absent fields return to their defaults',
    body: IdentityUpdateBody,
  }),
  identities.patch({ operationId: 'patchIdentity', summary: 'Changes the given fields of an identity', body: IdentityPatchBody }),
  identities.delete({ operationId: 'deleteIdentity', summary: 'Deletes an identity with its authenticators, API sessions and enrollments (not the default admin)' }),
  defineRoute({
    method: 'POST',
    url: '/identities/:id/disable',
    operationId: 'disableIdentity',
    summary: 'Disables an identity for durationMinutes (0 = until enabled); not the default admin',
    tags,
    access: 'admin',
    uses: ['identities'],
    schema: { params: IdParams, body: IdentityDisableBody, response: mutation },
    handler: async ({ domains, auth, params, body }) => {
      await domains.identities.disable(actorOf(auth), params.id, body.durationMinutes);
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
    uses: ['identities'],
    schema: { params: IdParams, response: mutation },
    handler: async ({ domains, auth, params }) => {
      await domains.identities.enable(actorOf(auth), params.id);
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
    uses: ['mfa'],
    schema: { params: IdParams, response: mutation },
    handler: async ({ domains, auth, params }) => {
      await domains.mfa.removeByAdmin(params.id, actorOf(auth));
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
    uses: ['authenticators'],
    schema: { params: IdParams, querystring: ListQueryParams, response: { 200: ListEnvelope(AuthenticatorView), 400: ApiErrorBody, ...denied, 404: ApiErrorBody } },
    handler: async ({ domains, params, query }) => {
      const page = await domains.authenticators.listForIdentity(params.id, query);
      return listEnvelope(page.items.map(authenticatorView), page.pagination, page.filterableFields);
    },
  }),
];
