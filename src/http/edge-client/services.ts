/**
 * Services on the client API (spec: Service group; reference listServices, detailService, updateService,
 * patchService, deleteService; issue 15, item 1; docs/decisions/0032-client-services.md). Any authenticated identity
 * lists and reads the services it may dial or bind (an administrator: every service), each with its permissions,
 * the configs of the types asked for and its posture queries; changing and deleting one needs an administrator,
 * with the management API's rules and audit.
 */
import type { PolicyPostureQueries, PostureQuery } from '../../services/posture/index.js';
import type { ClientService } from '../../services/authorization/client-services.js';
import { ApiErrorBody, Envelope, IdParams, ListEnvelope } from '../schemas/common.js';
import { ClientServiceDetailParams, ClientServiceListParams, ClientServiceView, ServiceBody, ServicePatchBody, ServiceView } from '../schemas/service.js';
import { envelope, selfLink } from '../kit/envelope.js';
import { clientServiceListJson } from './service-list-json.js';
import { resourceRoutes } from '../kit/resource-routes.js';
import { defineRoute } from '../kit/route.js';
import { serviceView } from '../edge-management/config-service-views.js';

const tags = ['Service'];

/** A posture query as the wire shows it (the list keeps its JSON per query object: service-list-json.ts). */
function postureQueryView(query: PostureQuery) {
  return {
    ...query,
    timeoutAt: query.timeoutAt?.toISOString() ?? null,
    tags: {},
    createdAt: query.createdAt.toISOString(),
    updatedAt: query.updatedAt.toISOString(),
    _links: selfLink('posture-checks', query.id),
  };
}

function postureQueriesView(policy: PolicyPostureQueries) {
  return { policyId: policy.policyId, policyType: policy.policyType, isPassing: policy.isPassing, postureQueries: policy.postureQueries.map(postureQueryView) };
}

/** A service as its caller sees it (the detail; the list is written from kept parts by service-list-json.ts). */
export function clientServiceView({ service, permissions, config, postureQueries }: ClientService) {
  return { ...serviceView(service), permissions, config, postureQueries: postureQueries.map(postureQueriesView) };
}

const responses = { 400: ApiErrorBody, 401: ApiErrorBody, 404: ApiErrorBody };
const administration = resourceRoutes({
  collection: 'services',
  tags,
  uses: 'authorization',
  service: (d) => d.authorization.services,
  view: serviceView,
  itemSchema: ServiceView,
});

export const clientServiceRoutes = [
  defineRoute({
    method: 'GET',
    url: '/services',
    operationId: 'listServices',
    summary: 'Lists the services the caller may dial or bind (an administrator: every service), with permissions, configs and posture queries',
    tags,
    access: 'session',
    uses: ['authorization', 'sessionConfigTypes'],
    schema: { querystring: ClientServiceListParams, response: { 200: ListEnvelope(ClientServiceView), ...responses } },
    handler: async ({ domains, auth, query, reply }) => {
      const caller = { auth: auth!, sessionConfigTypes: domains.sessionConfigTypes.of(auth!.session) };
      const page = await domains.authorization.clientServices.list(caller, query);
      // Written from parts kept between answers (service-list-json.ts); JSON text is sent as it is.
      reply.type('application/json; charset=utf-8');
      return clientServiceListJson(page, reply, postureQueryView);
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/services/:id',
    operationId: 'detailService',
    summary: 'Reads a service the caller may dial or bind (an administrator: any service)',
    tags,
    access: 'session',
    uses: ['authorization', 'sessionConfigTypes'],
    schema: { params: IdParams, querystring: ClientServiceDetailParams, response: { 200: Envelope(ClientServiceView), ...responses } },
    handler: async ({ domains, auth, params, query }) => {
      const caller = { auth: auth!, sessionConfigTypes: domains.sessionConfigTypes.of(auth!.session) };
      return envelope(clientServiceView(await domains.authorization.clientServices.get(caller, params.id, query)));
    },
  }),
  administration.replace({ operationId: 'updateService', summary: 'Replaces a service (administrators; encryptionRequired stays as created)', body: ServiceBody }),
  administration.patch({ operationId: 'patchService', summary: 'Changes the given fields of a service (administrators)', body: ServicePatchBody }),
  administration.delete({ operationId: 'deleteService', summary: 'Deletes a service with its config links and terminators (administrators)' }),
];
