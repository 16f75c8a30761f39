/**
 * The session's own identity (client API, spec: Current Identity and Current API Session authenticator
 * operations): its detail, and its authenticators, which it may list, read and change (username/password,
 * proving the current password). Only the session identity's authenticators are reachable.
 */
import { Type } from 'typebox';
import { IdentityDetail, AuthenticatorView } from '../schemas/identity.js';
import { ApiErrorBody, EmptyEnvelope, Envelope, IdParams, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { authenticatorView, identityDetailView } from '../edge-management/identity-views.js';
import { envelope, listEnvelope } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';
import { oncePerObject } from '../../shared/once-per-object.js';
import type { IdentityDetail as CallerDetail } from '../../services/identities/identities.js';

/**
 * The wire view of a caller's detail, made once per detail object: the one kept in memory is the same object from
 * request to request until the identity changes (IdentityService.currentFromMemory), and views are only read.
 */
const keptView = oncePerObject((detail: CallerDetail) => Object.freeze(envelope(identityDetailView(detail))));

const tags = ['Current Identity'];
const Username = Type.String({ minLength: 4, maxLength: 100 });
const Password = Type.String({ minLength: 5, maxLength: 100 });
const AuthenticatorPut = Type.Object(
  { username: Username, password: Password, currentPassword: Password, tags: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()])) },
  { additionalProperties: false },
);
const AuthenticatorPatch = Type.Object(
  {
    username: Type.Optional(Type.Union([Username, Type.Null()])),
    password: Type.Optional(Type.Union([Password, Type.Null()])),
    currentPassword: Password,
    tags: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()])),
  },
  { additionalProperties: false },
);
const errors = { 400: ApiErrorBody, 401: ApiErrorBody, 404: ApiErrorBody, 409: ApiErrorBody };

export const currentIdentityRoutes = [
  defineRoute({
    method: 'GET',
    url: '/current-identity',
    operationId: 'getCurrentIdentity',
    summary: 'Returns the identity of the session',
    tags,
    access: 'session',
    uses: ['identities'],
    schema: { response: { 200: Envelope(IdentityDetail), 401: ApiErrorBody } },
    fromMemory: ({ domains, auth }) => {
      const detail = domains.identities.currentFromMemory(auth.identity);
      return detail && keptView(detail);
    },
    handler: async ({ domains, auth }) => keptView(await domains.identities.current(auth!.identity)),
  }),
  defineRoute({
    method: 'GET',
    url: '/current-identity/authenticators',
    operationId: 'listCurrentIdentityAuthenticators',
    summary: "Lists the session identity's authenticators",
    tags,
    access: 'session',
    uses: ['ownAuthenticators'],
    schema: { querystring: ListQueryParams, response: { 200: ListEnvelope(AuthenticatorView), 400: ApiErrorBody, 401: ApiErrorBody } },
    handler: async ({ domains, auth, query }) => {
      const page = await domains.ownAuthenticators.list(auth!.identity, query);
      return listEnvelope(page.items.map(authenticatorView), page.pagination, page.filterableFields);
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/current-identity/authenticators/:id',
    operationId: 'detailCurrentIdentityAuthenticator',
    summary: "Returns one of the session identity's authenticators",
    tags,
    access: 'session',
    uses: ['ownAuthenticators'],
    schema: { params: IdParams, response: { 200: Envelope(AuthenticatorView), 401: ApiErrorBody, 404: ApiErrorBody } },
    handler: async ({ domains, auth, params }) => envelope(authenticatorView(await domains.ownAuthenticators.get(auth!.identity, params.id))),
  }),
  defineRoute({
    method: 'PUT',
    url: '/current-identity/authenticators/:id',
    operationId: 'updateCurrentIdentityAuthenticator',
    summary: 'Sets the username and password of an own username/password authenticator',
    tags,
    access: 'session',
    uses: ['ownAuthenticators'],
    schema: { params: IdParams, body: AuthenticatorPut, response: { 200: EmptyEnvelope, ...errors } },
    handler: async ({ domains, auth, params, body, request }) => {
      await domains.ownAuthenticators.update(auth!.identity, params.id, body, request.ip);
      return envelope({});
    },
  }),
  defineRoute({
    method: 'PATCH',
    url: '/current-identity/authenticators/:id',
    operationId: 'patchCurrentIdentityAuthenticator',
    summary: 'Changes the username and/or password of an own username/password authenticator',
    tags,
    access: 'session',
    uses: ['ownAuthenticators'],
    schema: { params: IdParams, body: AuthenticatorPatch, response: { 200: EmptyEnvelope, ...errors } },
    handler: async ({ domains, auth, params, body, request }) => {
      await domains.ownAuthenticators.update(auth!.identity, params.id, body, request.ip);
      return envelope({});
    },
  }),
];
