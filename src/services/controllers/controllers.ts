/**
 * The controllers of the network, as clients list them: list parameters are checked here and run in the store.
 */
import type { ControllerRecord } from '../../domain/controller.js';
import { parseListParams, type RawListParams } from '../../persistence/query/list-query.js';
import { CONTROLLER_FIELDS, type ControllerRepository } from '../../persistence/repositories/controllers.js';
import type { ListPage } from '../list-page.js';

export interface ControllerService {
  /** One page of controllers; throws INVALID_FILTER / INVALID_PAGINATION / INVALID_SORT_IDENTIFIER. */
  list(params: RawListParams): Promise<ListPage<ControllerRecord>>;
}

export function createControllerService(deps: { controllers: ControllerRepository }): ControllerService {
  const filterableFields = Object.keys(CONTROLLER_FIELDS);
  return {
    async list(params) {
      const query = parseListParams(params, CONTROLLER_FIELDS);
      const { items, totalCount } = await deps.controllers.list(query);
      return { items, pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields };
    },
  };
}
