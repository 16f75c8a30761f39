/**
 * Service management operations (`/services`, administrators only): the resource kit's six, and the configs a
 * service carries (`/services/{id}/configs`). The list also takes `roleFilter` and `roleSemantic` (decision 0030).
 */
import { ApiErrorBody, IdParams, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { ConfigView } from '../schemas/config.js';
import { ServiceBody, ServicePatchBody, ServiceView } from '../schemas/service.js';
import { listEnvelope } from '../kit/envelope.js';
import { resourceRoutes } from '../kit/resource-routes.js';
import { defineRoute } from '../kit/route.js';
import { configView, serviceView } from './config-service-views.js';
import { RoleFilterListParams } from '../schemas/role-filter.js';

const tags = ['Service'];
const services = resourceRoutes({ collection: 'services', tags, uses: 'authorization', service: (d) => d.authorization.services, view: serviceView, itemSchema: ServiceView });

export const serviceRoutes = [
  services.list({ operationId: 'listServices', summary: 'Lists services, optionally those matching roleFilter under roleSemantic', querystring: RoleFilterListParams }),
  services.create({ operationId: 'createService', summary: 'Creates a service', body: ServiceBody }),
  services.detail({ operationId: 'detailService', summary: 'Reads one service' }),
  services.replace({ operationId: 'updateService', summary: 'Replaces a service (encryptionRequired stays as created)', body: ServiceBody }),
  services.patch({ operationId: 'patchService', summary: 'Changes the given fields of a service', body: ServicePatchBody }),
  services.delete({ operationId: 'deleteService', summary: 'Deletes a service with its config links and terminators' }),
  defineRoute({
    method: 'GET',
    url: '/services/:id/configs',
    operationId: 'listServiceConfigs',
    summary: 'Lists the configs a service carries',
    tags,
    access: 'admin',
    uses: ['authorization'],
    schema: { params: IdParams, querystring: ListQueryParams, response: { 200: ListEnvelope(ConfigView), 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody } },
    handler: async ({ domains, params, query }) => {
      const page = await domains.authorization.configs.listForService(params.id, query);
      return listEnvelope(page.items.map(configView), page.pagination, page.filterableFields);
    },
  }),
];
