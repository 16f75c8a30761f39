/**
 * External JWT signer management operations (`/external-jwt-signers`, administrators only): list, create, read,
 * replace, patch, delete, and `check`, which runs the login verifier on a token and says which check fails.
 */
import type { ExternalJwtSigner } from '../../domain/external-jwt-signer.js';
import { certificateFacts } from '../../pki/index.js';
import { ApiErrorBody, EmptyEnvelope, Envelope, IdParams, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { ExtJwtCheckBody, ExtJwtCheckView, ExternalJwtSignerBody, ExternalJwtSignerPatchBody, ExternalJwtSignerView } from '../schemas/external-jwt-signer.js';
import { CreatedEnvelope } from '../schemas/identity.js';
import { actorOf } from '../kit/actor.js';
import { envelope, listEnvelope, selfLink } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';

const tags = ['External JWT Signer'];
const denied = { 401: ApiErrorBody, 403: ApiErrorBody };
const mutation = { 200: EmptyEnvelope, 400: ApiErrorBody, ...denied, 404: ApiErrorBody };
const COLLECTION = 'external-jwt-signers';

/** What the signer's certificate says; a JWKS signer has no one certificate (its keys rotate at the provider). */
function certificateView(certPem: string | null) {
  if (certPem === null) return { commonName: '', fingerprint: null, notBefore: null, notAfter: null };
  const facts = certificateFacts(certPem);
  return { commonName: facts.commonName, fingerprint: facts.fingerprint, notBefore: facts.notBefore.toISOString(), notAfter: facts.notAfter.toISOString() };
}

/** A signer as administrators see it (the output schema decides what is sent). */
export function externalJwtSignerView(signer: ExternalJwtSigner) {
  return {
    ...signer,
    ...certificateView(signer.certPem),
    enrollToCertEnabled: false,
    enrollToTokenEnabled: false,
    createdAt: signer.createdAt.toISOString(),
    updatedAt: signer.updatedAt.toISOString(),
    _links: selfLink(COLLECTION, signer.id),
  };
}

export const externalJwtSignerRoutes = [
  defineRoute({
    method: 'GET',
    url: '/external-jwt-signers',
    operationId: 'listExternalJwtSigners',
    summary: 'Lists external JWT signers',
    tags,
    access: 'admin',
    schema: { querystring: ListQueryParams, response: { 200: ListEnvelope(ExternalJwtSignerView), 400: ApiErrorBody, ...denied } },
    handler: async ({ api, query }) => {
      const page = await api.services.externalJwtSigners.list(query);
      return listEnvelope(page.items.map(externalJwtSignerView), page.pagination, page.filterableFields);
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/external-jwt-signers',
    operationId: 'createExternalJwtSigner',
    summary: 'Creates an external JWT signer (certPem or jwksEndpoint, not both)',
    tags,
    access: 'admin',
    status: 201,
    schema: { body: ExternalJwtSignerBody, response: { 201: CreatedEnvelope, 400: ApiErrorBody, ...denied } },
    handler: async ({ api, auth, body }) => {
      const signer = await api.services.externalJwtSigners.create(actorOf(auth), body);
      return envelope({ id: signer.id, _links: selfLink(COLLECTION, signer.id) });
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/external-jwt-signers/:id',
    operationId: 'detailExternalJwtSigner',
    summary: 'Reads one external JWT signer',
    tags,
    access: 'admin',
    schema: { params: IdParams, response: { 200: Envelope(ExternalJwtSignerView), ...denied, 404: ApiErrorBody } },
    handler: async ({ api, params }) => envelope(externalJwtSignerView(await api.services.externalJwtSigners.get(params.id))),
  }),
  defineRoute({
    method: 'PUT',
    url: '/external-jwt-signers/:id',
    operationId: 'updateExternalJwtSigner',
    summary: 'Replaces an external JWT signer; absent optional fields return to their defaults',
    tags,
    access: 'admin',
    schema: { params: IdParams, body: ExternalJwtSignerBody, response: mutation },
    handler: async ({ api, auth, params, body }) => {
      await api.services.externalJwtSigners.replace(actorOf(auth), params.id, body);
      return envelope({});
    },
  }),
  defineRoute({
    method: 'PATCH',
    url: '/external-jwt-signers/:id',
    operationId: 'patchExternalJwtSigner',
    summary: 'Changes the given fields of an external JWT signer',
    tags,
    access: 'admin',
    schema: { params: IdParams, body: ExternalJwtSignerPatchBody, response: mutation },
    handler: async ({ api, auth, params, body }) => {
      await api.services.externalJwtSigners.patch(actorOf(auth), params.id, body);
      return envelope({});
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: '/external-jwt-signers/:id',
    operationId: 'deleteExternalJwtSigner',
    summary: 'Deletes an external JWT signer no auth policy names',
    tags,
    access: 'admin',
    schema: { params: IdParams, response: { ...mutation, 409: ApiErrorBody } },
    handler: async ({ api, auth, params }) => {
      await api.services.externalJwtSigners.delete(actorOf(auth), params.id);
      return envelope({});
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/external-jwt-signers/:id/check',
    operationId: 'checkExternalJwtSignerToken',
    summary: 'Checks a JWT against the signer as a login would, naming the first check that fails',
    tags,
    access: 'admin',
    schema: { params: IdParams, body: ExtJwtCheckBody, response: { 200: Envelope(ExtJwtCheckView), 400: ApiErrorBody, ...denied, 404: ApiErrorBody } },
    handler: async ({ api, params, body }) => envelope(await api.services.externalJwtSigners.check(params.id, body.token)),
  }),
];
