/**
 * Configs in the store: the resource kit's operations over `configs` (migration 0012), and the questions the other
 * authorization resources ask of them: the type of each config a service names, and how many configs use a type.
 */
import type { Config } from '../../domain/config.js';
import type { Database } from '../database.js';
import type { FieldMap } from '../query/list-query.js';
import { resourceRepository, type ResourceRepository, type ResourceTable } from '../resource-table.js';
import type { ConfigsTable } from '../tables.js';
import { parseJson, toDate, toIso } from './row-values.js';

/** Public field name -> column, for `filter` and `sort` on the configs list. */
export const CONFIG_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  name: { column: 'name', type: 'string' },
  configTypeId: { column: 'config_type_id', type: 'string' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
  tags: { column: 'tags', type: 'tags' },
};

export const CONFIG_TABLE: ResourceTable<'configs', Config> = {
  table: 'configs',
  changeLog: 'config',
  fields: CONFIG_FIELDS,
  fromRow: (row: ConfigsTable) => ({
    id: row.id,
    name: row.name,
    configTypeId: row.config_type_id,
    data: parseJson(row.data),
    tags: parseJson(row.tags),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  }),
  toRow: (config) => ({
    id: config.id,
    name: config.name,
    config_type_id: config.configTypeId,
    data: JSON.stringify(config.data),
    tags: JSON.stringify(config.tags),
    created_at: toIso(config.createdAt),
    updated_at: toIso(config.updatedAt),
  }),
  // The type is fixed at create (reference configUpdate has no configTypeId); an edit never moves a config.
  keptOnUpdate: ['config_type_id'],
};

export interface ConfigRepository extends ResourceRepository<Config> {
  /** id -> config type id of each config in `ids` that exists. */
  typesOf(ids: readonly string[]): Promise<Map<string, string>>;
  /** How many configs are of type `configTypeId`. */
  countOfType(configTypeId: string): Promise<number>;
  /** The first `limit` configs (by name) of type `configTypeId`, id and name, for a refusal that names them. */
  namesOfType(configTypeId: string, limit: number): Promise<{ id: string; name: string }[]>;
  /** Every config of type `configTypeId`, for checking them against a new schema. */
  allOfType(configTypeId: string): Promise<Config[]>;
  /** The ids of the configs service `serviceId` carries. */
  idsOfService(serviceId: string): Promise<string[]>;
}

export function createConfigRepository(database: Database): ConfigRepository {
  const { db } = database;
  return {
    ...resourceRepository(database, CONFIG_TABLE),
    async typesOf(ids) {
      const unique = [...new Set(ids)];
      if (unique.length === 0) return new Map();
      const rows = await db.selectFrom('configs').select(['id', 'config_type_id']).where('id', 'in', unique).execute();
      return new Map(rows.map((row) => [row.id, row.config_type_id]));
    },
    async countOfType(configTypeId) {
      const row = await db.selectFrom('configs').select(db.fn.countAll().as('total')).where('config_type_id', '=', configTypeId).executeTakeFirstOrThrow();
      return Number(row.total);
    },
    async namesOfType(configTypeId, limit) {
      return db.selectFrom('configs').select(['id', 'name']).where('config_type_id', '=', configTypeId).orderBy('name').limit(limit).execute();
    },
    async allOfType(configTypeId) {
      const rows = await db.selectFrom('configs').selectAll().where('config_type_id', '=', configTypeId).orderBy('name').execute();
      return rows.map(CONFIG_TABLE.fromRow);
    },
    async idsOfService(serviceId) {
      const rows = await db.selectFrom('service_configs').select('config_id').where('service_id', '=', serviceId).execute();
      return rows.map((row) => row.config_id);
    },
  };
}
