/**
 * `/api-sessions` of the Management API (administrators): list the API sessions, legacy and OIDC (one identity's
 * with the filter `identityId = "…"`), read one, revoke one (`DELETE`). The view is the Edge API v1's
 * apiSessionDetail plus `kind` (`legacy` or `oidc`); its `token` is always empty, since only a hash of it is stored.
 */
import { Type } from 'typebox';
import { apiSessionFields } from '../common/current-api-session.js';
import type { ApiSessionListing } from '../../services/sessions/api-session-admin.js';
import { ApiErrorBody, EmptyEnvelope, Envelope, IdParams, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { CurrentApiSessionDetail } from '../schemas/api-session.js';
import { actorOf } from '../kit/actor.js';
import { envelope, listEnvelope, selfLink } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';

const tags = ['API Session'];
const denied = { 401: ApiErrorBody, 403: ApiErrorBody };

// The current-session view without the expiry of the credential presented (an administrator presents none of it).
const { expiresAt: _expiresAt, expirationSeconds: _expirationSeconds, ...detailProperties } = CurrentApiSessionDetail.properties;
const ApiSessionDetail = Type.Object({
  ...detailProperties,
  kind: Type.Union([Type.Literal('legacy'), Type.Literal('oidc')], {
    description: 'legacy: opened by POST /authenticate (svc-session token); oidc: opened by the OIDC provider (Bearer access tokens)',
  }),
});

function apiSessionView({ kind, session, identityName, certFlags }: ApiSessionListing, prefix: string) {
  // An administrator presents none of the session's credentials: no token. The flags are those of the login's
  // certificate authenticator, as the session itself sees them.
  return { ...apiSessionFields(session, { id: session.identityId, name: identityName }, prefix, certFlags), _links: selfLink('api-sessions', session.id), token: '', kind };
}

export const apiSessionRoutes = [
  defineRoute({
    method: 'GET',
    url: '/api-sessions',
    operationId: 'listAPISessions',
    summary: 'Lists API sessions, legacy and OIDC; filter identityId = "<id>" for one identity\'s, kind = "oidc" for one kind',
    tags,
    access: 'admin',
    uses: ['apiSessionAdmin'],
    schema: { querystring: ListQueryParams, response: { 200: ListEnvelope(ApiSessionDetail), 400: ApiErrorBody, ...denied } },
    handler: async ({ domains, query, api }) => {
      const page = await domains.apiSessionAdmin.list(query);
      return listEnvelope(
        page.items.map((item) => apiSessionView(item, api.prefix)),
        page.pagination,
        page.filterableFields,
      );
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/api-sessions/:id',
    operationId: 'detailAPISessions',
    summary: 'Reads one API session, legacy or OIDC',
    tags,
    access: 'admin',
    uses: ['apiSessionAdmin'],
    schema: { params: IdParams, response: { 200: Envelope(ApiSessionDetail), ...denied, 404: ApiErrorBody } },
    handler: async ({ domains, params, api }) => envelope(apiSessionView(await domains.apiSessionAdmin.detail(params.id), api.prefix)),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/api-sessions/:id',
    operationId: 'deleteAPISessions',
    summary: 'Revokes an API session: a legacy token, or an OIDC session\'s access and refresh tokens, stop working at once',
    tags,
    access: 'admin',
    uses: ['apiSessionAdmin'],
    schema: { params: IdParams, response: { 200: EmptyEnvelope, ...denied, 404: ApiErrorBody } },
    handler: async ({ domains, params, auth }) => {
      await domains.apiSessionAdmin.revoke(actorOf(auth), params.id);
      return envelope({});
    },
  }),
];
