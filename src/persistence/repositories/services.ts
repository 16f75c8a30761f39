/**
 * Services in the store: the resource kit's operations over `services` (migration 0012) with the rows that follow a
 * service, written and removed in its transaction (the kit's `dependents`): its configs (`service_configs`, one row
 * per config type), its role attributes in the policy engine's index (`entity_attributes`), and on delete its
 * terminators. A service read from here carries its config ids.
 */
import type { Kysely } from 'kysely';
import type { Service } from '../../domain/service.js';
import type { Database } from '../database.js';
import type { FieldMap } from '../query/list-query.js';
import { resourceRepository, type ResourceRepository, type ResourceTable } from '../resource-table.js';
import type { ServicesTable, Tables } from '../tables.js';
import { recordChange } from './authorization-changes.js';
import { indexAttributes, unindexEntity } from './role-index.js';
import { parseJson, toBool, toDate, toIso } from './row-values.js';

/** Public field name -> column, for `filter` and `sort` on the services list. */
export const SERVICE_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  name: { column: 'name', type: 'string' },
  encryptionRequired: { column: 'encryption_required', type: 'boolean' },
  maxIdleTimeMillis: { column: 'max_idle_time_millis', type: 'number' },
  terminatorStrategy: { column: 'terminator_strategy', type: 'string' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
  roleAttributes: { column: 'role_attributes', type: 'stringSet' },
  tags: { column: 'tags', type: 'tags' },
};

/** A service row without its configs; the repository adds them. */
function serviceFromRow(row: ServicesTable): Service {
  return {
    id: row.id,
    name: row.name,
    roleAttributes: parseJson(row.role_attributes),
    configs: [],
    encryptionRequired: toBool(row.encryption_required),
    maxIdleTimeMillis: Number(row.max_idle_time_millis),
    terminatorStrategy: row.terminator_strategy,
    tags: parseJson(row.tags),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

/** Replaces the config rows of a service; each row carries its config's type, the key of "one per type". */
async function writeConfigs(db: Kysely<Tables>, service: Service): Promise<void> {
  await db.deleteFrom('service_configs').where('service_id', '=', service.id).execute();
  if (service.configs.length === 0) return;
  const configs = await db.selectFrom('configs').select(['id', 'config_type_id']).where('id', 'in', service.configs).execute();
  await db
    .insertInto('service_configs')
    .values(configs.map((config) => ({ service_id: service.id, config_type_id: config.config_type_id, config_id: config.id })))
    .execute();
}

export const SERVICE_TABLE: ResourceTable<'services', Service> = {
  table: 'services',
  changeLog: 'service',
  fields: SERVICE_FIELDS,
  fromRow: serviceFromRow,
  toRow: (service) => ({
    id: service.id,
    name: service.name,
    role_attributes: JSON.stringify(service.roleAttributes),
    encryption_required: service.encryptionRequired,
    max_idle_time_millis: service.maxIdleTimeMillis,
    terminator_strategy: service.terminatorStrategy,
    tags: JSON.stringify(service.tags),
    created_at: toIso(service.createdAt),
    updated_at: toIso(service.updatedAt),
  }),
  // Set at create, never changed after (reference serviceUpdate: "Read-only property, set at create").
  keptOnUpdate: ['encryption_required'],
  dependents: {
    async written(db, service) {
      await writeConfigs(db, service);
      await indexAttributes(db, 'service', service.id, service.roleAttributes);
    },
    // The foreign keys cascade too; deleting here keeps the outcome the same on a store that does not enforce them.
    async deleted(db, id, store) {
      await db.deleteFrom('service_configs').where('service_id', '=', id).execute();
      // SDK-bound terminators go with their service: their routers are told to end the bindings (issue 42).
      const hosted = await db.selectFrom('terminators').select('id').where('service_id', '=', id).where('host_id', 'is not', null).execute();
      for (const { id: terminatorId } of hosted) await recordChange(store, 'terminator', terminatorId);
      await db.deleteFrom('terminators').where('service_id', '=', id).execute();
      await unindexEntity(db, 'service', id);
    },
  },
};

export interface ServiceRepository extends ResourceRepository<Service> {
  /** The ids of the services that carry config `configId`. */
  idsUsingConfig(configId: string): Promise<string[]>;
}

export function createServiceRepository(database: Database): ServiceRepository {
  const { db } = database;
  const generic = resourceRepository(database, SERVICE_TABLE);

  /** The services with their config ids, read in one query for the lot. */
  async function withConfigs(services: Service[]): Promise<Service[]> {
    if (services.length === 0) return services;
    const rows = await db
      .selectFrom('service_configs')
      .select(['service_id', 'config_id'])
      .where('service_id', 'in', services.map((service) => service.id))
      .execute();
    const byService = new Map<string, string[]>();
    for (const row of rows) byService.set(row.service_id, [...(byService.get(row.service_id) ?? []), row.config_id]);
    return services.map((service) => ({ ...service, configs: (byService.get(service.id) ?? []).sort() }));
  }
  const one = async (service: Service | undefined) => service && (await withConfigs([service]))[0];

  return {
    ...generic,
    findById: async (id) => one(await generic.findById(id)),
    findByName: async (name) => one(await generic.findByName(name)),
    async list(query, restriction) {
      const { items, totalCount } = await generic.list(query, restriction);
      return { items: await withConfigs(items), totalCount };
    },
    async idsUsingConfig(configId) {
      const rows = await db.selectFrom('service_configs').select('service_id').where('config_id', '=', configId).execute();
      return rows.map((row) => row.service_id);
    },
  };
}
