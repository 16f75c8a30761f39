/**
 * Terminators in the store, written by hand: the resource kit's repository needs a `name` column and terminators
 * have none. Reads carry the names of the terminator's service and router (lists and details show both). The
 * service and router existence checks read those tables directly. Deleting a service or a router removes its
 * terminators by the foreign keys' ON DELETE CASCADE (migration 0012; SQLite enforces keys, see database.ts).
 */
import type { Kysely } from 'kysely';
import type { NamedTerminator, Terminator, TerminatorPrecedence } from '../../domain/terminator.js';
import type { Database } from '../database.js';
import { listTableRows, type FieldMap, type ListQuery } from '../query/list-query.js';
import type { Tables, TerminatorsTable } from '../tables.js';
import { recordChange } from './authorization-changes.js';
import { parseJson, toDate, toIso } from './row-values.js';

/** Public field name -> column, for `filter` and `sort` on terminator lists. */
export const TERMINATOR_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  service: { column: 'service_id', type: 'string' },
  serviceId: { column: 'service_id', type: 'string' },
  router: { column: 'router_id', type: 'string' },
  routerId: { column: 'router_id', type: 'string' },
  binding: { column: 'binding', type: 'string' },
  address: { column: 'address', type: 'string' },
  identity: { column: 'identity', type: 'string' },
  cost: { column: 'cost', type: 'number' },
  precedence: { column: 'precedence', type: 'string' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
  tags: { column: 'tags', type: 'tags' },
};

export interface TerminatorRepository {
  findById(id: string): Promise<NamedTerminator | undefined>;
  list(query: ListQuery): Promise<{ items: NamedTerminator[]; totalCount: number }>;
  insert(terminator: Terminator): Promise<void>;
  /** Writes every column but `id`, `created_at` and `host_id`. */
  update(terminator: Terminator): Promise<void>;
  delete(id: string): Promise<boolean>;
  /** The terminators of service `serviceId` on router `routerId` (a dial chooses among them). */
  listOnRouter(serviceId: string, routerId: string): Promise<Terminator[]>;
  /** Every terminator of service `serviceId`, on any router. */
  listForService(serviceId: string): Promise<Terminator[]>;
  /** The terminators SDKs bound (host set), all or those of one router or host: as many as the network hosts, never more. */
  listHosted(of?: { routerId?: string; hostId?: string }): Promise<Terminator[]>;
  /**
   * Logs the removal of an SDK-bound terminator in the change log, in the caller's transaction, so that every
   * controller tells its routers (a `terminator` revocation) within the feed's bound.
   */
  announceRemoval(id: string): Promise<void>;
  serviceExists(id: string): Promise<boolean>;
  routerExists(id: string): Promise<boolean>;
}

function fromRow(row: TerminatorsTable): Terminator {
  return {
    id: row.id,
    serviceId: row.service_id,
    routerId: row.router_id,
    binding: row.binding,
    address: row.address,
    identity: row.identity,
    identitySecret: row.identity_secret,
    cost: Number(row.cost),
    precedence: row.precedence as TerminatorPrecedence,
    hostId: row.host_id,
    tags: parseJson(row.tags),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

function toRow(terminator: Terminator): TerminatorsTable {
  return {
    id: terminator.id,
    service_id: terminator.serviceId,
    router_id: terminator.routerId,
    binding: terminator.binding,
    address: terminator.address,
    identity: terminator.identity,
    identity_secret: terminator.identitySecret,
    cost: terminator.cost,
    precedence: terminator.precedence,
    host_id: terminator.hostId,
    tags: JSON.stringify(terminator.tags),
    created_at: toIso(terminator.createdAt),
    updated_at: toIso(terminator.updatedAt),
  };
}

/** id -> name of the rows of `table` among `ids` (also the links and circuits lists' names). */
export async function namesOf(db: Kysely<Tables>, table: 'services' | 'edge_routers' | 'identities', ids: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.selectFrom(table).select(['id', 'name']).where('id', 'in', unique).execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}

export function createTerminatorRepository(database: Database): TerminatorRepository {
  const { db } = database;

  async function named(terminators: Terminator[]): Promise<NamedTerminator[]> {
    const services = await namesOf(db, 'services', terminators.map((t) => t.serviceId));
    const routers = await namesOf(db, 'edge_routers', terminators.map((t) => t.routerId));
    return terminators.map((t) => ({ ...t, serviceName: services.get(t.serviceId) ?? '', routerName: routers.get(t.routerId) ?? '' }));
  }
  const exists = async (table: 'services' | 'edge_routers', id: string) =>
    (await db.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

  return {
    async findById(id) {
      const row = await db.selectFrom('terminators').selectAll().where('id', '=', id).executeTakeFirst();
      return row && (await named([fromRow(row)]))[0];
    },
    async list(query) {
      const { rows, totalCount } = await listTableRows(db, database.dialect, 'terminators', TERMINATOR_FIELDS, query);
      return { items: await named(rows.map(fromRow)), totalCount };
    },
    async insert(terminator) {
      await db.insertInto('terminators').values(toRow(terminator)).execute();
    },
    async update(terminator) {
      const { id: _id, created_at: _created, host_id: _host, ...values } = toRow(terminator);
      await db.updateTable('terminators').set(values).where('id', '=', terminator.id).execute();
    },
    async delete(id) {
      const result = await db.deleteFrom('terminators').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async listOnRouter(serviceId, routerId) {
      const rows = await db.selectFrom('terminators').selectAll().where('service_id', '=', serviceId).where('router_id', '=', routerId).orderBy('id').execute();
      return rows.map(fromRow);
    },
    async listForService(serviceId) {
      const rows = await db.selectFrom('terminators').selectAll().where('service_id', '=', serviceId).orderBy('id').execute();
      return rows.map(fromRow);
    },
    async listHosted(of = {}) {
      let query = db.selectFrom('terminators').selectAll().where('host_id', 'is not', null);
      if (of.routerId !== undefined) query = query.where('router_id', '=', of.routerId);
      if (of.hostId !== undefined) query = query.where('host_id', '=', of.hostId);
      return (await query.orderBy('id').execute()).map(fromRow);
    },
    announceRemoval: (id) => recordChange(database, 'terminator', id),
    serviceExists: (id) => exists('services', id),
    routerExists: (id) => exists('edge_routers', id),
  };
}
