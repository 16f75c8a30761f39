/**
 * Services on the client API (spec: Service group; reference listServices, detailService, updateService,
 * patchService, deleteService; issue 15, item 1; docs/decisions/0032-client-services.md). Any authenticated identity
 * lists and reads the services it may dial or bind (an administrator: every service), each with its permissions,
 * the configs of the types asked for and its posture queries; changing and deleting one needs an administrator,
 * with the management API's rules and audit.
 */
import type { PolicyPostureQueries } from '../../services/posture/index.js';
import type { ClientService } from '../../services/authorization/client-services.js';
import { ApiErrorBody, Envelope, IdParams, ListEnvelope } from '../schemas/common.js';
import { ClientServiceDetailParams, ClientServiceListParams, ClientServiceView, ServiceBody, ServicePatchBody, ServiceView } from '../schemas/service.js';
import { envelope, listEnvelope, selfLink } from '../kit/envelope.js';
import { resourceRoutes } from '../kit/resource-routes.js';
import { defineRoute } from '../kit/route.js';
import { serviceView } from '../edge-management/config-service-views.js';

const tags = ['Service'];

function postureQueriesView(policy: PolicyPostureQueries) {
  return {
    policyId: policy.policyId,
    policyType: policy.policyType,
    isPassing: policy.isPassing,
    postureQueries: policy.postureQueries.map((query) => ({
      ...query,
      timeoutAt: query.timeoutAt?.toISOString() ?? null,
      tags: {},
      createdAt: query.createdAt.toISOString(),
      updatedAt: query.updatedAt.toISOString(),
      _links: selfLink('posture-checks', query.id),
    })),
  };
}

/**
 * The caller-independent part of each service's view, kept per service object: the index hands out the same object
 * until the service changes, so a client's list of a hundred services builds only what its session adds.
 */
const sharedViews = new WeakMap<object, ReturnType<typeof serviceView>>();

/** A service as its caller sees it. */
export function clientServiceView({ service, permissions, config, postureQueries }: ClientService) {
  let shared = sharedViews.get(service);
  if (!shared) sharedViews.set(service, (shared = serviceView(service)));
  return { ...shared, permissions, config, postureQueries: postureQueries.map(postureQueriesView) };
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
    handler: async ({ domains, auth, query }) => {
      const caller = { auth: auth!, sessionConfigTypes: domains.sessionConfigTypes.of(auth!.session) };
      const page = await domains.authorization.clientServices.list(caller, query);
      return listEnvelope(page.items.map(clientServiceView), page.pagination, page.filterableFields);
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
