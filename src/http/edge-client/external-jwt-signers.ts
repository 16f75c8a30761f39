/**
 * `GET /external-jwt-signers` (anyone, no session): the enabled signers a client can log in with, showing how to
 * reach each provider and never how its tokens are verified (reference listExternalJwtSigners).
 */
import type { ExternalJwtSigner } from '../../domain/external-jwt-signer.js';
import { ApiErrorBody, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { ClientExternalJwtSignerView } from '../schemas/external-jwt-signer.js';
import { listEnvelope, selfLink } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';

/** Only the public fields are copied: the client view is built from an allow-list, not by dropping secrets. */
export function clientExternalJwtSignerView(signer: ExternalJwtSigner) {
  return {
    id: signer.id,
    name: signer.name,
    externalAuthUrl: signer.externalAuthUrl,
    clientId: signer.clientId,
    scopes: signer.scopes,
    audience: signer.audience,
    targetToken: signer.targetToken,
    enrollToCertEnabled: false,
    enrollToTokenEnabled: false,
    tags: signer.tags,
    createdAt: signer.createdAt.toISOString(),
    updatedAt: signer.updatedAt.toISOString(),
    _links: selfLink('external-jwt-signers', signer.id),
  };
}

export const listClientExternalJwtSignersRoute = defineRoute({
  method: 'GET',
  url: '/external-jwt-signers',
  operationId: 'listExternalJwtSigners',
  summary: 'Lists the enabled external JWT signers clients can log in with',
  tags: ['External JWT Signer'],
  access: 'none',
  uses: ['externalJwtSigners'],
  schema: { querystring: ListQueryParams, response: { 200: ListEnvelope(ClientExternalJwtSignerView), 400: ApiErrorBody } },
  handler: async ({ domains, query }) => {
    const page = await domains.externalJwtSigners.listEnabled(query);
    return listEnvelope(page.items.map(clientExternalJwtSignerView), page.pagination, page.filterableFields);
  },
});
