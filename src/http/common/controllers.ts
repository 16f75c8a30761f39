/**
 * `GET /controllers`: the controllers of the network with the API addresses a client may use
 * (the client API hides the controllers' control-plane address, as the reference does).
 */
import type { ControllerRecord } from '../../domain/controller.js';
import { ApiErrorBody, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { Controller } from '../schemas/informational.js';
import { listEnvelope, selfLink } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';

/** `showCtrl`: the management API shows the control-plane address routers dial; the client API hides it (reference). */
function controllerView(record: ControllerRecord, showCtrl: boolean) {
  return {
    id: record.id,
    name: record.name,
    certPem: record.certPem,
    fingerprint: record.fingerprint,
    isOnline: record.isOnline,
    lastJoinedAt: record.lastJoinedAt.toISOString(),
    ctrlAddress: showCtrl ? record.ctrlAddress : null,
    isPreferredLeader: false,
    apiAddresses: record.apiAddresses,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
    tags: {},
    _links: selfLink('controllers', record.id),
  };
}

/** `GET /controllers`; the management API's (`showCtrl`) adds each controller's `ctrlAddress`. */
function controllersRoute(showCtrl: boolean) {
  return defineRoute({
    method: 'GET',
    url: '/controllers',
    operationId: 'listControllers',
    summary: 'Lists the controllers of the network',
    tags: ['Controllers'],
    access: showCtrl ? 'admin' : 'session',
    uses: ['controllers'],
    schema: { querystring: ListQueryParams, response: { 200: ListEnvelope(Controller), 400: ApiErrorBody, 401: ApiErrorBody } },
    handler: async ({ domains, query }) => {
      const page = await domains.controllers.list(query);
      return listEnvelope(page.items.map((record) => controllerView(record, showCtrl)), page.pagination, page.filterableFields);
    },
  });
}

export const listControllersRoute = controllersRoute(false);
export const listControllersForAdminsRoute = controllersRoute(true);
