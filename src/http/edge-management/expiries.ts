/**
 * `GET /expiries?within=P30D` (issue 45, administrators only): enrollments, identities' and routers' certificates,
 * CA certificates, external JWT signers' certificates and OIDC signing keys that end within the window, ended ones
 * first, paged (the console's expiry board). services/expiries/expiry-board.ts decides.
 */
import { Type } from 'typebox';
import { ApiErrorBody, Envelope } from '../schemas/common.js';
import { defineRoute } from '../kit/route.js';

const Expiring = Type.Object({
  kind: Type.Union(
    ['enrollment', 'router-enrollment', 'identity-certificate', 'router-certificate', 'ca-certificate', 'oidc-signing-key', 'external-jwt-signer-certificate'].map((k) => Type.Literal(k)),
  ),
  id: Type.String(),
  name: Type.String(),
  expiresAt: Type.String({ format: 'date-time' }),
  isExpired: Type.Boolean(),
  entity: Type.Object({ type: Type.String({ description: 'a Management API collection' }), id: Type.String(), name: Type.String() }),
});
const ExpiriesQuery = Type.Object({
  within: Type.Optional(Type.String({ description: 'ISO 8601 window from now: P30D (default), P2W, PT12H; at most a year', maxLength: 32 })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,6}$', description: 'items per page, 1 to 500 (default 25)' })),
  offset: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$', description: 'items to skip (default 0)' })),
});

export const expiriesRoute = defineRoute({
  method: 'GET',
  url: '/expiries',
  operationId: 'listExpiries',
  summary: 'Lists what ends within a window from now: enrollments, certificates and signing keys, soonest first',
  tags: ['Informational'],
  access: 'admin',
  uses: ['expiries'],
  schema: { querystring: ExpiriesQuery, response: { 200: Envelope(Type.Array(Expiring)), 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody } },
  handler: async ({ domains, query }) => {
    const page = await domains.expiries.page({ ...(query.within ? { within: query.within } : {}), ...(query.limit ? { limit: Number(query.limit) } : {}), ...(query.offset ? { offset: Number(query.offset) } : {}) });
    const now = Date.now();
    return {
      data: page.items.map((item) => ({ ...item, expiresAt: item.expiresAt.toISOString(), isExpired: item.expiresAt.getTime() <= now })),
      meta: { pagination: page.pagination, within: page.within, until: page.until.toISOString() },
    };
  },
});
