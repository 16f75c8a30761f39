/**
 * The controllers of the network, as clients list them: list parameters are checked here and run in the store;
 * `isOnline` is read from each controller's heartbeat (heartbeat.ts).
 */
import type { ControllerRecord } from '../../domain/controller.js';
import type { Clock } from '../../shared/clock.js';
import { parseListParams, type RawListParams } from '../../persistence/query/list-query.js';
import { CONTROLLER_FIELDS, type ControllerRepository } from '../../persistence/repositories/controllers.js';
import type { ListPage } from '../list-page.js';
import { ONLINE_WITHIN_MS } from './heartbeat.js';

export interface ControllerService {
  /** One page of controllers; throws INVALID_FILTER / INVALID_PAGINATION / INVALID_SORT_IDENTIFIER. */
  list(params: RawListParams): Promise<ListPage<ControllerRecord>>;
}

export function createControllerService(deps: { controllers: ControllerRepository; clock: Clock }): ControllerService {
  const filterableFields = Object.keys(CONTROLLER_FIELDS);
  return {
    async list(params) {
      const query = parseListParams(params, CONTROLLER_FIELDS);
      const { items, totalCount } = await deps.controllers.list(query, new Date(deps.clock.now().getTime() - ONLINE_WITHIN_MS));
      return { items, pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields };
    },
  };
}
