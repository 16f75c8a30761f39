/**
 * Config types in the store: the resource kit's operations over `config_types` (migration 0012). The schema is kept
 * as JSON text; it is read and written whole and never filtered on.
 */
import type { ConfigType } from '../../domain/config.js';
import type { Database } from '../database.js';
import type { FieldMap } from '../query/list-query.js';
import { resourceRepository, type ResourceRepository, type ResourceTable } from '../resource-table.js';
import type { ConfigTypesTable } from '../tables.js';
import { parseJson, toDate, toIso } from './row-values.js';

/** Public field name -> column, for `filter` and `sort` on the config types list. */
export const CONFIG_TYPE_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  name: { column: 'name', type: 'string' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
  tags: { column: 'tags', type: 'tags' },
};

export const CONFIG_TYPE_TABLE: ResourceTable<'config_types', ConfigType> = {
  table: 'config_types',
  changeLog: 'config-type',
  fields: CONFIG_TYPE_FIELDS,
  fromRow: (row: ConfigTypesTable) => ({
    id: row.id,
    name: row.name,
    schema: parseJson(row.schema),
    tags: parseJson(row.tags),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  }),
  toRow: (type) => ({
    id: type.id,
    name: type.name,
    schema: JSON.stringify(type.schema),
    tags: JSON.stringify(type.tags),
    created_at: toIso(type.createdAt),
    updated_at: toIso(type.updatedAt),
  }),
};

export type ConfigTypeRepository = ResourceRepository<ConfigType>;

export function createConfigTypeRepository(database: Database): ConfigTypeRepository {
  return resourceRepository(database, CONFIG_TYPE_TABLE);
}
