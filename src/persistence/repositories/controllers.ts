/**
 * Controllers sharing the store. Each controller upserts its own row (by name) at start, beats its heartbeat while it
 * runs (marking offline the others whose heartbeat stopped) and marks itself offline when it stops; lists go through
 * the filter language, and read `isOnline` from the heartbeat's age (docs/decisions/0034-several-controllers.md).
 */
import type { ControllerRecord } from '../../domain/controller.js';
import type { Database } from '../database.js';
import { listRows, type FieldMap, type ListQuery } from '../query/list-query.js';
import type { ControllersTable } from '../tables.js';
import { parseJson, toBool, toDate, toDateOrNull, toIso } from './row-values.js';

/** Public field name -> column, for `filter` and `sort` on the controllers list. */
export const CONTROLLER_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  name: { column: 'name', type: 'string' },
  fingerprint: { column: 'fingerprint', type: 'string' },
  isOnline: { column: 'is_online', type: 'boolean' },
  lastJoinedAt: { column: 'last_joined_at', type: 'datetime' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
};

export interface ControllerRepository {
  /** Inserts or refreshes the row of the controller named `record.name`, its heartbeat at `lastJoinedAt`; returns the stored id. */
  upsert(record: ControllerRecord): Promise<string>;
  /** The row of the controller named `name`, with its latest heartbeat. */
  findByName(name: string): Promise<{ record: ControllerRecord; lastHeartbeatAt: Date | null } | undefined>;
  setOnline(id: string, isOnline: boolean, at: Date): Promise<void>;
  /**
   * Records a heartbeat of controller `id` at `at` (online), and marks offline every other controller whose latest
   * heartbeat is older than `staleBefore` (killed, or cut off from the store), so that filters on `isOnline` see it.
   */
  heartbeat(id: string, at: Date, staleBefore: Date): Promise<void>;
  /** A page of controllers; `isOnline` only for a controller online whose latest heartbeat is `onlineSince` or later. */
  list(query: ListQuery, onlineSince: Date): Promise<{ items: ControllerRecord[]; totalCount: number }>;
}

function fromRow(row: ControllersTable, onlineSince?: Date): ControllerRecord {
  const fresh = onlineSince === undefined || (row.last_heartbeat_at !== null && row.last_heartbeat_at >= toIso(onlineSince));
  return {
    id: row.id,
    name: row.name,
    certPem: row.cert_pem,
    fingerprint: row.fingerprint,
    apiAddresses: parseJson(row.api_addresses),
    ctrlAddress: row.ctrl_address ?? null,
    isOnline: toBool(row.is_online) && fresh,
    lastJoinedAt: toDate(row.last_joined_at),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

export function createControllerRepository(database: Database): ControllerRepository {
  const { db } = database;
  return {
    async upsert(record) {
      const existing = await db.selectFrom('controllers').select('id').where('name', '=', record.name).executeTakeFirst();
      const values = {
        cert_pem: record.certPem,
        fingerprint: record.fingerprint,
        api_addresses: JSON.stringify(record.apiAddresses),
        ctrl_address: record.ctrlAddress,
        is_online: record.isOnline,
        last_joined_at: toIso(record.lastJoinedAt),
        last_heartbeat_at: toIso(record.lastJoinedAt),
        updated_at: toIso(record.updatedAt),
      };
      if (existing) {
        await db.updateTable('controllers').set(values).where('id', '=', existing.id).execute();
        return existing.id;
      }
      await db
        .insertInto('controllers')
        .values({ id: record.id, name: record.name, created_at: toIso(record.createdAt), ...values })
        .execute();
      return record.id;
    },
    async findByName(name) {
      const row = await db.selectFrom('controllers').selectAll().where('name', '=', name).executeTakeFirst();
      return row && { record: fromRow(row), lastHeartbeatAt: toDateOrNull(row.last_heartbeat_at) };
    },
    async heartbeat(id, at, staleBefore) {
      await db.updateTable('controllers').set({ is_online: true, last_heartbeat_at: toIso(at) }).where('id', '=', id).execute();
      await db
        .updateTable('controllers')
        .set({ is_online: false, updated_at: toIso(at) })
        .where('id', '!=', id)
        .where('is_online', '=', true)
        .where((eb) => eb.or([eb('last_heartbeat_at', 'is', null), eb('last_heartbeat_at', '<', toIso(staleBefore))]))
        .execute();
    },
    async setOnline(id, isOnline, at) {
      await db.updateTable('controllers').set({ is_online: isOnline, updated_at: toIso(at) }).where('id', '=', id).execute();
    },
    async list(query, onlineSince) {
      const { rows, totalCount } = await listRows(database, 'controllers', CONTROLLER_FIELDS, query);
      return { items: rows.map((row) => fromRow(row, onlineSince)), totalCount };
    },
  };
}
