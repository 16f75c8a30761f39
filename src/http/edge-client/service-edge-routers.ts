/**
 * What a client reads about one service it may see (spec: Service group; reference listServiceEdgeRouters,
 * listServiceTerminators; issue 15, item 2; docs/decisions/0031-edge-sessions.md): the edge routers through which it
 * may reach the service (its edge router policies and the service's service edge router policies both name them),
 * optionally proving a session with the `session-token` header, and the service's terminators. 404 for a service the
 * caller may not see, worded as for one that does not exist.
 */
import type { NamedTerminator } from '../../domain/terminator.js';
import { ApiErrorBody, IdParams, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { ClientTerminatorView, ServiceEdgeRoutersEnvelope, SessionTokenHeader } from '../schemas/session.js';
import { listEnvelope, selfLink } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';
import { sessionEdgeRouterView } from './sessions.js';

const tags = ['Service'];

/** A terminator as a client reads it: which router hosts the service, not the address behind it. */
function clientTerminatorView(t: NamedTerminator) {
  return {
    id: t.id,
    serviceId: t.serviceId,
    service: { id: t.serviceId, name: t.serviceName, entity: 'services', _links: selfLink('services', t.serviceId) },
    routerId: t.routerId,
    identity: t.identity,
    tags: t.tags,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
    _links: selfLink('terminators', t.id),
  };
}

export const serviceEdgeRouterRoutes = [
  defineRoute({
    method: 'GET',
    url: '/services/:id/edge-routers',
    operationId: 'listServiceEdgeRouters',
    summary: 'Lists the edge routers through which the caller may reach a service; a session-token header, when given, must be valid',
    tags,
    access: 'session',
    uses: ['edgeSessions'],
    schema: {
      params: IdParams,
      querystring: ListQueryParams,
      headers: SessionTokenHeader,
      response: { 200: ServiceEdgeRoutersEnvelope, 400: ApiErrorBody, 401: ApiErrorBody, 404: ApiErrorBody },
    },
    handler: async ({ domains, auth, params, query, request }) => {
      const token = request.headers['session-token'] as string | undefined;
      const page = await domains.edgeSessions.serviceEdgeRouters(auth!, params.id, query, token);
      return { data: { edgeRouters: page.items.map(sessionEdgeRouterView) }, meta: { pagination: page.pagination, filterableFields: page.filterableFields } };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/services/:id/terminators',
    operationId: 'listServiceTerminators',
    summary: 'Lists the terminators of a service the caller may see',
    tags,
    access: 'session',
    uses: ['edgeSessions'],
    schema: { params: IdParams, querystring: ListQueryParams, response: { 200: ListEnvelope(ClientTerminatorView), 400: ApiErrorBody, 401: ApiErrorBody, 404: ApiErrorBody } },
    handler: async ({ domains, auth, params, query }) => {
      const page = await domains.edgeSessions.serviceTerminators(auth!, params.id, query);
      return listEnvelope(page.items.map(clientTerminatorView), page.pagination, page.filterableFields);
    },
  }),
];
