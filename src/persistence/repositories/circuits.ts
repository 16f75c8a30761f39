/**
 * Circuits in the store (migration 0031; decision 0070): one row per circuit a dial decision opened, until its
 * ingress router says it ended, keeps only others after a reconnect, or the sweep forgets it.
 */
import type { Circuit } from '../../domain/fabric.js';
import type { Database } from '../database.js';
import { listTableRows, type FieldMap, type ListQuery } from '../query/list-query.js';
import type { CircuitsTable } from '../tables.js';
import { parseJson, toDate, toIso } from './row-values.js';

/** Public field name -> column, for `filter` and `sort` on the circuits list. */
export const CIRCUIT_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  serviceId: { column: 'service_id', type: 'string' },
  clientId: { column: 'identity_id', type: 'string' },
  apiSessionId: { column: 'api_session_id', type: 'string' },
  terminatorId: { column: 'terminator_id', type: 'string' },
  ingressRouterId: { column: 'ingress_router_id', type: 'string' },
  egressRouterId: { column: 'egress_router_id', type: 'string' },
  createdAt: { column: 'created_at', type: 'datetime' },
};

/** Ids per statement when deleting a named set. */
const DELETE_BATCH = 500;

export interface CircuitRepository {
  insert(circuit: Circuit): Promise<void>;
  /** Deletes those of `ids` that began at `ingressId` (others' ids are ignored); how many went. */
  deleteOf(ingressId: string, ids: readonly string[]): Promise<number>;
  /** Deletes `ingressId`'s circuits not in `keep`; how many went. */
  keepOnly(ingressId: string, keep: readonly string[]): Promise<number>;
  /**
   * Deletes the circuits whose ingress router is offline since before `cutoff`: its channel closed at `cutoff` or
   * earlier, or its controller's last heartbeat was at `heartbeatCutoff` or earlier, or it never connected. One statement.
   */
  deleteOfOfflineIngress(cutoff: Date, heartbeatCutoff: Date): Promise<number>;
  list(query: ListQuery): Promise<{ items: Circuit[]; totalCount: number }>;
  findById(id: string): Promise<Circuit | undefined>;
}

function fromRow(row: CircuitsTable): Circuit {
  return {
    id: row.id,
    serviceId: row.service_id,
    identityId: row.identity_id,
    apiSessionId: row.api_session_id,
    terminatorId: row.terminator_id,
    ingressRouterId: row.ingress_router_id,
    egressRouterId: row.egress_router_id,
    path: parseJson(row.path),
    links: parseJson(row.links),
    createdAt: toDate(row.created_at),
  };
}

export function createCircuitRepository(database: Database): CircuitRepository {
  const { db } = database;
  return {
    async insert(circuit) {
      await db
        .insertInto('circuits')
        .values({
          id: circuit.id,
          service_id: circuit.serviceId,
          identity_id: circuit.identityId,
          api_session_id: circuit.apiSessionId,
          terminator_id: circuit.terminatorId,
          ingress_router_id: circuit.ingressRouterId,
          egress_router_id: circuit.egressRouterId,
          path: JSON.stringify(circuit.path),
          links: JSON.stringify(circuit.links),
          created_at: toIso(circuit.createdAt),
        })
        .execute();
    },
    async deleteOf(ingressId, ids) {
      let removed = 0;
      const unique = [...new Set(ids)];
      for (let i = 0; i < unique.length; i += DELETE_BATCH) {
        const result = await db.deleteFrom('circuits').where('ingress_router_id', '=', ingressId).where('id', 'in', unique.slice(i, i + DELETE_BATCH)).executeTakeFirst();
        removed += Number(result.numDeletedRows);
      }
      return removed;
    },
    async keepOnly(ingressId, keep) {
      // The router's circuits are read first (one query) so the delete names ids, never a NOT IN of unbounded size.
      const kept = new Set(keep);
      const rows = await db.selectFrom('circuits').select('id').where('ingress_router_id', '=', ingressId).execute();
      const stale = rows.map((row) => row.id).filter((id) => !kept.has(id));
      return stale.length === 0 ? 0 : this.deleteOf(ingressId, stale);
    },
    async deleteOfOfflineIngress(cutoff, heartbeatCutoff) {
      const stillOnline = db
        .selectFrom('router_presence as p')
        .leftJoin('controllers as c', 'c.id', 'p.controller_id')
        .select('p.router_id')
        .where((eb) =>
          eb.or([
            eb('p.disconnected_at', '>', toIso(cutoff)),
            eb.and([eb('p.disconnected_at', 'is', null), eb('c.last_heartbeat_at', '>', toIso(heartbeatCutoff))]),
          ]),
        );
      const result = await db.deleteFrom('circuits').where('ingress_router_id', 'not in', stillOnline).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async list(query) {
      const { rows, totalCount } = await listTableRows(db, database.dialect, 'circuits', CIRCUIT_FIELDS, query);
      return { items: rows.map(fromRow), totalCount };
    },
    async findById(id) {
      const row = await db.selectFrom('circuits').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? fromRow(row) : undefined;
    },
  };
}
