/**
 * Third-party CA operations (`/cas`, administrators only): list, create, read, replace, patch, delete (the resource
 * kit), `POST /cas/{id}/verify` with the PEM verification certificate as a text body (reference `verifyCa`), and
 * `GET /cas/{id}/jwt`, the CA's enrollment JWT as application/jwt.
 */
import { Type } from 'typebox';
import type { CertificateAuthority } from '../../domain/ca.js';
import { ApiErrorBody, EmptyEnvelope, IdParams } from '../schemas/common.js';
import { CaCreateBody, CaPatchBody, CaUpdateBody, CaView } from '../schemas/ca.js';
import { actorOf } from '../kit/actor.js';
import { envelope, selfLink } from '../kit/envelope.js';
import { resourceRoutes } from '../kit/resource-routes.js';
import { defineRoute } from '../kit/route.js';

const tags = ['Certificate Authority'];
const denied = { 401: ApiErrorBody, 403: ApiErrorBody };
const COLLECTION = 'cas';

/** A CA as administrators see it. */
export function caView(ca: CertificateAuthority) {
  return { ...ca, createdAt: ca.createdAt.toISOString(), updatedAt: ca.updatedAt.toISOString(), _links: selfLink(COLLECTION, ca.id) };
}

const cas = resourceRoutes({ collection: COLLECTION, tags, uses: 'cas', service: (domains) => domains.cas, view: caView, itemSchema: CaView });

export const caRoutes = [
  cas.list({ operationId: 'listCas', summary: 'Lists third-party certificate authorities' }),
  cas.create({ operationId: 'createCa', summary: 'Registers a third-party CA from its PEM certificate (a CA, unexpired, not yet registered); unverified until POST /cas/{id}/verify', body: CaCreateBody }),
  cas.detail({ operationId: 'detailCa', summary: 'Reads one CA, with its verificationToken' }),
  cas.replace({ operationId: 'updateCa', summary: "Replaces a CA's settings (the certificate stays); absent optional fields return to their defaults", body: CaUpdateBody }),
  cas.patch({ operationId: 'patchCa', summary: 'Changes the given settings of a CA', body: CaPatchBody }),
  cas.delete({ operationId: 'deleteCa', summary: 'Deletes a CA and its pending ottca enrollments; its certificates no longer log in' }),
  defineRoute({
    method: 'POST',
    url: '/cas/:id/verify',
    operationId: 'verifyCa',
    summary: "Verifies a CA: the text body is a PEM certificate signed by the CA whose common name is the CA's verificationToken",
    tags,
    access: 'admin',
    uses: ['cas'],
    consumes: ['text/plain', 'application/x-pem-file'],
    schema: { params: IdParams, response: { 200: EmptyEnvelope, 400: ApiErrorBody, ...denied, 404: ApiErrorBody, 409: ApiErrorBody } },
    handler: async ({ domains, auth, params, request }) => {
      await domains.cas.verify(actorOf(auth), params.id, typeof request.body === 'string' ? request.body : undefined);
      return envelope({});
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/cas/:id/jwt',
    operationId: 'getCaJwt',
    summary: "Returns the CA's enrollment JWT (application/jwt)",
    tags,
    access: 'admin',
    uses: ['cas'],
    produces: ['application/jwt'],
    schema: { params: IdParams, response: { 200: Type.String(), ...denied, 404: ApiErrorBody } },
    handler: async ({ domains, params, reply }) => {
      const jwt = await domains.cas.jwt(params.id);
      reply.code(200).type('application/jwt').send(jwt);
      return undefined;
    },
  }),
];
