/**
 * Terminator management operations (`/terminators`, administrators only): the resource kit's six, and the
 * terminators of one service (`/services/{id}/terminators`). The instance secret is accepted on create and never sent.
 */
import type { NamedTerminator } from '../../domain/terminator.js';
import { ApiErrorBody, IdParams, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { TerminatorCreateBody, TerminatorPatchBody, TerminatorUpdateBody, TerminatorView } from '../schemas/terminator.js';
import { listEnvelope, selfLink } from '../kit/envelope.js';
import { resourceRoutes } from '../kit/resource-routes.js';
import { defineRoute } from '../kit/route.js';

const ref = (collection: string, id: string, name: string) => ({ id, name, entity: collection, _links: selfLink(collection, id) });

/** A terminator as sent; with no router connected, its dynamic cost is its cost. */
export function terminatorView(t: NamedTerminator) {
  return {
    id: t.id,
    serviceId: t.serviceId,
    service: ref('services', t.serviceId, t.serviceName),
    routerId: t.routerId,
    router: ref('edge-routers', t.routerId, t.routerName),
    binding: t.binding,
    address: t.address,
    identity: t.identity,
    cost: t.cost,
    dynamicCost: t.cost,
    precedence: t.precedence,
    tags: t.tags,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
    _links: selfLink('terminators', t.id),
  };
}

const tags = ['Terminator'];
const terminators = resourceRoutes({
  collection: 'terminators',
  tags,
  uses: 'authorization',
  service: (domains) => domains.authorization.terminators,
  view: terminatorView,
  itemSchema: TerminatorView,
});

export const terminatorRoutes = [
  terminators.list({ operationId: 'listTerminators', summary: 'Lists terminators' }),
  terminators.create({ operationId: 'createTerminator', summary: 'Creates a terminator of a service on an edge router', body: TerminatorCreateBody }),
  terminators.detail({ operationId: 'detailTerminator', summary: 'Reads one terminator' }),
  terminators.replace({ operationId: 'updateTerminator', summary: 'Replaces a terminator (its instance identity stays)', body: TerminatorUpdateBody }),
  terminators.patch({ operationId: 'patchTerminator', summary: 'Changes the given fields of a terminator', body: TerminatorPatchBody }),
  terminators.delete({ operationId: 'deleteTerminator', summary: 'Deletes a terminator' }),
  defineRoute({
    method: 'GET',
    url: '/services/:id/terminators',
    operationId: 'listServiceTerminators',
    summary: 'Lists the terminators of a service',
    tags,
    access: 'admin',
    uses: ['authorization'],
    schema: { params: IdParams, querystring: ListQueryParams, response: { 200: ListEnvelope(TerminatorView), 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody } },
    handler: async ({ domains, params, query }) => {
      const page = await domains.authorization.terminators.listOfService(params.id, query);
      return listEnvelope(page.items.map(terminatorView), page.pagination, page.filterableFields);
    },
  }),
];
