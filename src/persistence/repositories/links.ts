/**
 * Router links in the store (migration 0031; decision 0070): each router's last LinkReport, replaced whole, and the
 * graph a dial's path is chosen over, read in one query for every link.
 */
import type { Link, LinkState } from '../../domain/fabric.js';
import type { Database } from '../database.js';
import { listTableRows, type FieldMap, type ListQuery } from '../query/list-query.js';
import type { LinksTable } from '../tables.js';
import { atomically } from '../unit-of-work.js';
import { toDate, toIso } from './row-values.js';

/** Public field name -> column, for `filter` and `sort` on the links list. */
export const LINK_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  sourceRouterId: { column: 'source_router_id', type: 'string' },
  destRouterId: { column: 'dest_router_id', type: 'string' },
  state: { column: 'state', type: 'string' },
  dialAddress: { column: 'dial_address', type: 'string' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
};

/** Links written per statement: well under both dialects' bound on parameters. */
const INSERT_BATCH = 200;

export interface LinkRepository {
  /**
   * Router `sourceId`'s links become exactly `links` (its whole report). A link whose id another router already
   * reports is left to that router; one to an unknown router, or to itself, is dropped. Answers the ids written.
   */
  replaceOf(sourceId: string, links: readonly Omit<Link, 'sourceRouterId' | 'updatedAt'>[], at: Date): Promise<string[]>;
  /** Removes `sourceId`'s links reported at `before` or earlier (its channel closed here then). */
  removeOf(sourceId: string, before: Date): Promise<number>;
  /** Every link, for the routing graph. */
  all(): Promise<Link[]>;
  list(query: ListQuery): Promise<{ items: Link[]; totalCount: number }>;
  findById(id: string): Promise<Link | undefined>;
}

function fromRow(row: LinksTable): Link {
  return {
    id: row.id,
    sourceRouterId: row.source_router_id,
    destRouterId: row.dest_router_id,
    state: row.state as LinkState,
    latencyMs: row.latency_ms === null ? null : Number(row.latency_ms),
    dialAddress: row.dial_address,
    updatedAt: toDate(row.updated_at),
  };
}

export function createLinkRepository(database: Database): LinkRepository {
  const { db } = database;
  return {
    async replaceOf(sourceId, links, at) {
      return atomically(db, async (trx) => {
        await trx.deleteFrom('links').where('source_router_id', '=', sourceId).execute();
        // A link to a router that does not exist (deleted meanwhile, or never) is not kept: nothing could route over it.
        const dests = [...new Set(links.map((link) => link.destRouterId))].filter((id) => id !== sourceId);
        const known = new Set<string>();
        for (let i = 0; i < dests.length; i += INSERT_BATCH) {
          const found = await trx.selectFrom('edge_routers').select('id').where('id', 'in', dests.slice(i, i + INSERT_BATCH)).execute();
          for (const row of found) known.add(row.id);
        }
        const rows = links.filter((link) => known.has(link.destRouterId)).map((link) => ({
          id: link.id,
          source_router_id: sourceId,
          dest_router_id: link.destRouterId,
          state: link.state,
          latency_ms: link.latencyMs,
          dial_address: link.dialAddress,
          updated_at: toIso(at),
        }));
        for (let i = 0; i < rows.length; i += INSERT_BATCH) {
          await trx.insertInto('links').values(rows.slice(i, i + INSERT_BATCH)).onConflict((c) => c.column('id').doNothing()).execute();
        }
        const written = await trx.selectFrom('links').select('id').where('source_router_id', '=', sourceId).execute();
        return written.map((row) => row.id);
      });
    },
    async removeOf(sourceId, before) {
      const result = await db.deleteFrom('links').where('source_router_id', '=', sourceId).where('updated_at', '<=', toIso(before)).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async all() {
      return (await db.selectFrom('links').selectAll().orderBy('id').execute()).map(fromRow);
    },
    async list(query) {
      const { rows, totalCount } = await listTableRows(db, database.dialect, 'links', LINK_FIELDS, query);
      return { items: rows.map(fromRow), totalCount };
    },
    async findById(id) {
      const row = await db.selectFrom('links').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? fromRow(row) : undefined;
    },
  };
}
