/**
 * The client API's sessions (spec: Session group; reference createSession, listSessions, detailSession, deleteSession;
 * issue 15, item 3; docs/decisions/0031-edge-sessions.md): open a session to dial or bind a service, list, read and
 * end the caller's own. Either credential works (legacy `svc-session` or OIDC bearer); a session belongs to the API
 * session that opened it, and any other API session gets 404 for it.
 */
import type { EdgeRouter } from '../../domain/edge-router.js';
import type { EdgeSessionView } from '../../services/edge-sessions/index.js';
import { ApiErrorBody, EmptyEnvelope, Envelope, IdParams, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { SessionCreateBody, SessionView } from '../schemas/session.js';
import { envelope, listEnvelope, selfLink } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';

const tags = ['Session'];
const errors = { 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody };

/** A router as a session names it: where to connect (protocol -> address, twice for older SDKs) and how to weigh it. */
export function sessionEdgeRouterView(router: EdgeRouter) {
  const addresses = router.connection.supportedProtocols ?? {};
  return {
    id: router.id,
    name: router.name,
    hostname: router.connection.hostname ?? '',
    isOnline: router.connection.isOnline ?? false,
    supportedProtocols: addresses,
    urls: addresses,
    syncStatus: router.connection.syncStatus ?? 'SYNC_NEW',
    cost: router.cost,
    noTraversal: router.noTraversal,
    disabled: router.disabled,
  };
}

export function sessionView({ session, token, edgeRouters }: EdgeSessionView) {
  return {
    id: session.id,
    type: session.type,
    serviceId: session.serviceId,
    service: { id: session.serviceId, name: session.serviceName, entity: 'services', _links: selfLink('services', session.serviceId) },
    apiSessionId: session.apiSessionId,
    // An API session has no name; its link is the caller's own current API session.
    apiSession: { id: session.apiSessionId, name: '', entity: 'api-sessions', _links: { self: { href: './current-api-session' } } },
    identityId: session.identityId,
    token,
    edgeRouters: edgeRouters.map(sessionEdgeRouterView),
    tags: session.tags,
    createdAt: session.createdAt.toISOString(),
    updatedAt: session.updatedAt.toISOString(),
    _links: selfLink('sessions', session.id),
  };
}

export const sessionRoutes = [
  defineRoute({
    method: 'POST',
    url: '/sessions',
    operationId: 'createSession',
    summary: 'Opens a session to dial or bind a service (or answers the open one of this API session)',
    tags,
    access: 'session',
    uses: ['edgeSessions'],
    status: 201,
    schema: { body: SessionCreateBody, response: { 201: Envelope(SessionView), ...errors, 409: ApiErrorBody } },
    handler: async ({ domains, auth, body }) =>
      envelope(sessionView(await domains.edgeSessions.create(auth!, { serviceId: body.serviceId, type: body.type ?? 'Dial', tags: body.tags ?? null }))),
  }),
  defineRoute({
    method: 'GET',
    url: '/sessions',
    operationId: 'listSessions',
    summary: "Lists the sessions of the caller's API session",
    tags,
    access: 'session',
    uses: ['edgeSessions'],
    schema: { querystring: ListQueryParams, response: { 200: ListEnvelope(SessionView), 400: ApiErrorBody, 401: ApiErrorBody } },
    handler: async ({ domains, auth, query }) => {
      const page = await domains.edgeSessions.list(auth!, query);
      return listEnvelope(page.items.map(sessionView), page.pagination, page.filterableFields);
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/sessions/:id',
    operationId: 'detailSession',
    summary: "Reads one session of the caller's API session, with a fresh token",
    tags,
    access: 'session',
    uses: ['edgeSessions'],
    schema: { params: IdParams, response: { 200: Envelope(SessionView), 401: ApiErrorBody, 404: ApiErrorBody } },
    handler: async ({ domains, auth, params }) => envelope(sessionView(await domains.edgeSessions.get(auth!, params.id))),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/sessions/:id',
    operationId: 'deleteSession',
    summary: "Ends one session of the caller's API session",
    tags,
    access: 'session',
    uses: ['edgeSessions'],
    schema: { params: IdParams, response: { 200: EmptyEnvelope, 401: ApiErrorBody, 404: ApiErrorBody } },
    handler: async ({ domains, auth, params }) => {
      await domains.edgeSessions.delete(auth!, params.id);
      return envelope({});
    },
  }),
];
