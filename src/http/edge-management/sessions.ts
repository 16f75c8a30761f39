/**
 * `/sessions` of the Management API (administrators): every identity's sessions (the right, opened by an SDK, to
 * dial or bind a service), filtered and paged by the store (`identityId = "…"`, `serviceId`, `apiSessionId`,
 * `type`), with service and identity names; and ending one (`DELETE`), audited. The client API's `/sessions` is the
 * caller's own; this one is everyone's, so it never carries a session's token.
 */
import type { ListedEdgeSession } from '../../services/edge-sessions/index.js';
import { ApiErrorBody, EmptyEnvelope, IdParams, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { ManagementSessionView } from '../schemas/session.js';
import { actorOf } from '../kit/actor.js';
import { envelope, listEnvelope, selfLink } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';

const tags = ['Session'];
const denied = { 401: ApiErrorBody, 403: ApiErrorBody };

const ref = (entity: string, id: string, name: string) => ({ id, name, entity, _links: selfLink(entity, id) });

function managementSessionView(session: ListedEdgeSession) {
  return {
    id: session.id,
    type: session.type,
    serviceId: session.serviceId,
    service: ref('services', session.serviceId, session.serviceName),
    apiSessionId: session.apiSessionId,
    // An API session has no name.
    apiSession: ref('api-sessions', session.apiSessionId, ''),
    identityId: session.identityId,
    identity: ref('identities', session.identityId, session.identityName),
    tags: session.tags,
    createdAt: session.createdAt.toISOString(),
    updatedAt: session.updatedAt.toISOString(),
    _links: selfLink('sessions', session.id),
  };
}

export const managementSessionRoutes = [
  defineRoute({
    method: 'GET',
    url: '/sessions',
    operationId: 'listManagementSessions',
    summary: 'Lists every identity\'s sessions; filter identityId = "<id>", serviceId, apiSessionId or type',
    tags,
    access: 'admin',
    uses: ['edgeSessionAdmin'],
    schema: { querystring: ListQueryParams, response: { 200: ListEnvelope(ManagementSessionView), 400: ApiErrorBody, ...denied } },
    handler: async ({ domains, query }) => {
      const page = await domains.edgeSessionAdmin.list(query);
      return listEnvelope(page.items.map(managementSessionView), page.pagination, page.filterableFields);
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: '/sessions/:id',
    operationId: 'deleteManagementSession',
    summary: 'Ends a session, whoever holds it; its SDK finds it gone at its next use',
    tags,
    access: 'admin',
    uses: ['edgeSessionAdmin'],
    schema: { params: IdParams, response: { 200: EmptyEnvelope, ...denied, 404: ApiErrorBody } },
    handler: async ({ domains, params, auth }) => {
      await domains.edgeSessionAdmin.end(actorOf(auth), params.id);
      return envelope({});
    },
  }),
];
