/**
 * The enrollments of the Edge Management API (administrators only): list, read, create, refresh (a new token,
 * JWT and expiry) and delete the pending one-time enrollments of identities (reference facts §9, §10).
 */
import { Type } from 'typebox';
import type { Enrollment } from '../../domain/enrollment.js';
import { actorOf } from '../kit/actor.js';
import { envelope, listEnvelope, selfLink } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';
import { ApiErrorBody, DateTime, EmptyEnvelope, Envelope, IdParams, Links, ListEnvelope, ListQueryParams } from '../schemas/common.js';

const tags = ['Enrollment'];

const EnrollmentDetail = Type.Object({
  id: Type.String(),
  method: Type.String({ description: 'ott, ottca or updb' }),
  identityId: Type.String(),
  token: Type.String({ description: 'the one-time token (the JWT jti); a secret while the enrollment is pending' }),
  jwt: Type.String({ description: 'the signed enrollment JWT to hand to the enrolling device or user' }),
  expiresAt: DateTime,
  username: Type.Optional(Type.String({ description: 'updb only' })),
  caId: Type.Optional(Type.String({ description: 'ottca only: the third-party CA whose certificate enrolls' })),
  createdAt: DateTime,
  updatedAt: DateTime,
  tags: Type.Object({}),
  _links: Links,
});

const CreateEnrollment = Type.Object(
  {
    method: Type.Union([Type.Literal('ott'), Type.Literal('ottca'), Type.Literal('updb')]),
    identityId: Type.String({ minLength: 1 }),
    expiresAt: Type.String({ format: 'date-time', description: 'RFC 3339; must be in the future' }),
    username: Type.Optional(Type.String({ description: 'required for updb: 4 to 100 characters, no white space at either end, no control, bidirectional-formatting or other invisible characters (docs/guides/apis.md, Username limits)' })),
    caId: Type.Optional(Type.String({ minLength: 1, description: 'required for ottca: the third-party CA (GET /cas)' })),
  },
  { additionalProperties: false },
);

const RefreshEnrollment = Type.Object({ expiresAt: Type.String({ format: 'date-time', description: 'RFC 3339; must be in the future' }) }, { additionalProperties: false });

const CreatedEnvelope = Envelope(Type.Object({ id: Type.String(), _links: Links }));

/** The wire view of an enrollment. */
export function enrollmentView(enrollment: Enrollment) {
  return {
    id: enrollment.id,
    method: enrollment.method,
    identityId: enrollment.identityId,
    token: enrollment.token,
    jwt: enrollment.jwt,
    expiresAt: enrollment.expiresAt.toISOString(),
    ...(enrollment.username === null ? {} : { username: enrollment.username }),
    ...(enrollment.caId ? { caId: enrollment.caId } : {}),
    createdAt: enrollment.createdAt.toISOString(),
    updatedAt: enrollment.updatedAt.toISOString(),
    tags: {},
    _links: { ...selfLink('enrollments', enrollment.id), identity: { href: `./identities/${enrollment.identityId}` } },
  };
}

const errors = { 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody };

export const enrollmentRoutes = [
  defineRoute({
    method: 'GET',
    url: '/enrollments',
    operationId: 'listEnrollments',
    summary: 'Lists pending enrollments (filterable on id, identityId, method, expiresAt, createdAt)',
    tags,
    access: 'admin',
    uses: ['enrollments'],
    schema: { querystring: ListQueryParams, response: { 200: ListEnvelope(EnrollmentDetail), ...errors } },
    handler: async ({ domains, query }) => {
      const page = await domains.enrollments.list(query);
      return listEnvelope(page.items.map(enrollmentView), page.pagination, page.filterableFields);
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/enrollments',
    operationId: 'createEnrollment',
    summary: 'Creates a pending enrollment (ott or updb) for an identity',
    tags,
    access: 'admin',
    uses: ['enrollments'],
    status: 201,
    schema: { body: CreateEnrollment, response: { 201: CreatedEnvelope, ...errors, 409: ApiErrorBody } },
    handler: async ({ domains, auth, body }) => {
      const enrollment = await domains.enrollments.create(actorOf(auth), {
        method: body.method,
        identityId: body.identityId,
        expiresAt: new Date(body.expiresAt),
        ...(body.username === undefined ? {} : { username: body.username }),
        ...(body.caId === undefined ? {} : { caId: body.caId }),
      });
      return envelope({ id: enrollment.id, _links: selfLink('enrollments', enrollment.id) });
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/enrollments/:id',
    operationId: 'detailEnrollment',
    summary: 'Returns one pending enrollment with its token and JWT',
    tags,
    access: 'admin',
    uses: ['enrollments'],
    schema: { params: IdParams, response: { 200: Envelope(EnrollmentDetail), ...errors } },
    handler: async ({ domains, params }) => envelope(enrollmentView(await domains.enrollments.get(params.id))),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/enrollments/:id',
    operationId: 'deleteEnrollment',
    summary: 'Deletes a pending enrollment; its token stops working',
    tags,
    access: 'admin',
    uses: ['enrollments'],
    schema: { params: IdParams, response: { 200: EmptyEnvelope, ...errors } },
    handler: async ({ domains, auth, params }) => {
      await domains.enrollments.delete(actorOf(auth), params.id);
      return envelope({});
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/enrollments/:id/refresh',
    operationId: 'refreshEnrollment',
    summary: 'Gives a pending enrollment a new token, JWT and expiry (the old token stops working)',
    tags,
    access: 'admin',
    uses: ['enrollments'],
    schema: { params: IdParams, body: RefreshEnrollment, response: { 200: Envelope(EnrollmentDetail), ...errors } },
    handler: async ({ domains, auth, params, body }) =>
      envelope(enrollmentView(await domains.enrollments.refresh(actorOf(auth), params.id, new Date(body.expiresAt)))),
  }),
];
