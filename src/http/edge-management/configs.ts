/**
 * Config management operations (`/configs`, administrators only): the resource kit's six, and the services that
 * carry a config (`/configs/{id}/services`). The detail names its type as an entity reference, like the reference's
 * configDetail.
 */
import { ApiErrorBody, IdParams, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { ConfigCreateBody, ConfigPatchBody, ConfigUpdateBody, ConfigView } from '../schemas/config.js';
import { ServiceView } from '../schemas/service.js';
import { listEnvelope } from '../kit/envelope.js';
import { resourceRoutes } from '../kit/resource-routes.js';
import { defineRoute } from '../kit/route.js';
import { configView, serviceView } from './config-service-views.js';

const tags = ['Config'];
const configs = resourceRoutes({ collection: 'configs', tags, uses: 'authorization', service: (d) => d.authorization.configs, view: configView, itemSchema: ConfigView });

export const configRoutes = [
  configs.list({ operationId: 'listConfigs', summary: 'Lists configs' }),
  configs.create({ operationId: 'createConfig', summary: 'Creates a config; its data must satisfy its type', body: ConfigCreateBody }),
  configs.detail({ operationId: 'detailConfig', summary: 'Reads one config' }),
  configs.replace({ operationId: 'updateConfig', summary: 'Replaces a config (its type stays)', body: ConfigUpdateBody }),
  configs.patch({ operationId: 'patchConfig', summary: 'Changes the given fields of a config (its type stays)', body: ConfigPatchBody }),
  configs.delete({ operationId: 'deleteConfig', summary: 'Deletes a config no service carries', responses: { 409: ApiErrorBody } }),
  defineRoute({
    method: 'GET',
    url: '/configs/:id/services',
    operationId: 'listConfigServices',
    summary: 'Lists the services that carry a config',
    tags,
    access: 'admin',
    uses: ['authorization'],
    schema: { params: IdParams, querystring: ListQueryParams, response: { 200: ListEnvelope(ServiceView), 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody } },
    handler: async ({ domains, params, query }) => {
      const page = await domains.authorization.services.listForConfig(params.id, query);
      return listEnvelope(page.items.map(serviceView), page.pagination, page.filterableFields);
    },
  }),
];
