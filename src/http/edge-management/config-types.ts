/**
 * Config type management operations (`/config-types`, administrators only): the resource kit's six, and the configs
 * of a type (`/config-types/{id}/configs`). The well-known types clients ask for by name are there from the start.
 */
import { ApiErrorBody, IdParams, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { ConfigTypeBody, ConfigTypePatchBody, ConfigTypeView, ConfigView } from '../schemas/config.js';
import { listEnvelope } from '../kit/envelope.js';
import { resourceRoutes } from '../kit/resource-routes.js';
import { defineRoute } from '../kit/route.js';
import { configTypeView, configView } from './config-service-views.js';

const tags = ['Config'];
const types = resourceRoutes({
  collection: 'config-types',
  tags,
  uses: 'authorization',
  service: (d) => d.authorization.configTypes,
  view: configTypeView,
  itemSchema: ConfigTypeView,
});

export const configTypeRoutes = [
  types.list({ operationId: 'listConfigTypes', summary: 'Lists config types' }),
  types.create({ operationId: 'createConfigType', summary: 'Creates a config type from a JSON Schema', body: ConfigTypeBody }),
  types.detail({ operationId: 'detailConfigType', summary: 'Reads one config type' }),
  types.replace({ operationId: 'updateConfigType', summary: 'Replaces a config type; its configs must satisfy the new schema', body: ConfigTypeBody }),
  types.patch({ operationId: 'patchConfigType', summary: 'Changes the given fields of a config type', body: ConfigTypePatchBody }),
  types.delete({ operationId: 'deleteConfigType', summary: 'Deletes a config type no config uses', responses: { 409: ApiErrorBody } }),
  defineRoute({
    method: 'GET',
    url: '/config-types/:id/configs',
    operationId: 'listConfigsForConfigType',
    summary: 'Lists the configs of a config type',
    tags,
    access: 'admin',
    uses: ['authorization'],
    schema: { params: IdParams, querystring: ListQueryParams, response: { 200: ListEnvelope(ConfigView), 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody } },
    handler: async ({ domains, params, query }) => {
      const page = await domains.authorization.configs.listForType(params.id, query);
      return listEnvelope(page.items.map(configView), page.pagination, page.filterableFields);
    },
  }),
];
