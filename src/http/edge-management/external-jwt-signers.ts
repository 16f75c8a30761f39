/**
 * External JWT signer management operations (`/external-jwt-signers`, administrators only): list, create, read,
 * replace, patch, delete, and `check`, which runs the login verifier on a token and says which check fails.
 */
import type { ExternalJwtSigner } from '../../domain/external-jwt-signer.js';
import { certificateFacts } from '../../pki/index.js';
import { ApiErrorBody, Envelope, IdParams } from '../schemas/common.js';
import { ExtJwtCheckBody, ExtJwtCheckView, ExternalJwtSignerBody, ExternalJwtSignerPatchBody, ExternalJwtSignerView } from '../schemas/external-jwt-signer.js';
import { envelope, selfLink } from '../kit/envelope.js';
import { resourceRoutes } from '../kit/resource-routes.js';
import { defineRoute } from '../kit/route.js';

const tags = ['External JWT Signer'];
const denied = { 401: ApiErrorBody, 403: ApiErrorBody };
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

const signers = resourceRoutes({
  collection: COLLECTION,
  tags,
  uses: 'externalJwtSigners',
  service: (domains) => domains.externalJwtSigners,
  view: externalJwtSignerView,
  itemSchema: ExternalJwtSignerView,
});

export const externalJwtSignerRoutes = [
  signers.list({ operationId: 'listExternalJwtSigners', summary: 'Lists external JWT signers' }),
  signers.create({ operationId: 'createExternalJwtSigner', summary: 'Creates an external JWT signer (certPem or jwksEndpoint, not both)', body: ExternalJwtSignerBody }),
  signers.detail({ operationId: 'detailExternalJwtSigner', summary: 'Reads one external JWT signer' }),
  signers.replace({ operationId: 'updateExternalJwtSigner', summary: 'Replaces an external JWT signer; absent optional fields return to their defaults', body: ExternalJwtSignerBody }),
  signers.patch({ operationId: 'patchExternalJwtSigner', summary: 'Changes the given fields of an external JWT signer', body: ExternalJwtSignerPatchBody }),
  signers.delete({ operationId: 'deleteExternalJwtSigner', summary: 'Deletes an external JWT signer no auth policy names', responses: { 409: ApiErrorBody } }),
  defineRoute({
    method: 'POST',
    url: '/external-jwt-signers/:id/check',
    operationId: 'checkExternalJwtSignerToken',
    summary: 'Checks a JWT against the signer as a login would, naming the first check that fails',
    tags,
    access: 'admin',
    uses: ['externalJwtSigners'],
    schema: { params: IdParams, body: ExtJwtCheckBody, response: { 200: Envelope(ExtJwtCheckView), 400: ApiErrorBody, ...denied, 404: ApiErrorBody } },
    handler: async ({ domains, params, body }) => envelope(await domains.externalJwtSigners.check(params.id, body.token)),
  }),
];
