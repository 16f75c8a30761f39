/**
 * The audit trail: one row per management mutation, saying who did what to which entity. Append-only.
 */
import type { Selectable } from 'kysely';
import type { AuditEntry, RecordedAuditEntry } from '../../domain/audit.js';
import type { Database } from '../database.js';
import { listRows, type FieldMap, type ListQuery } from '../query/list-query.js';
import type { AuditLogTable } from '../tables.js';
import { parseJson, toDate, toIso } from './row-values.js';

export const AUDIT_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  sequence: { column: 'seq', type: 'number' },
  actorId: { column: 'actor_id', type: 'string' },
  actorName: { column: 'actor_name', type: 'string' },
  action: { column: 'action', type: 'string' },
  entityType: { column: 'entity_type', type: 'string' },
  entityId: { column: 'entity_id', type: 'string' },
  createdAt: { column: 'created_at', type: 'datetime' },
};

export interface AuditLogRepository {
  append(entry: AuditEntry): Promise<void>;
  list(query: ListQuery): Promise<{ items: RecordedAuditEntry[]; totalCount: number }>;
}

function fromRow(row: Selectable<AuditLogTable>): RecordedAuditEntry {
  return {
    id: row.id,
    // PostgreSQL's bigint arrives as a string.
    sequence: Number(row.seq),
    actor: { id: row.actor_id, name: row.actor_name },
    action: row.action,
    entityType: row.entity_type,
    entityId: row.entity_id,
    details: parseJson(row.details),
    createdAt: toDate(row.created_at),
  };
}

export function createAuditLogRepository(database: Database): AuditLogRepository {
  return {
    async append(entry) {
      await database.db
        .insertInto('audit_log')
        .values({
          id: entry.id,
          actor_id: entry.actor.id,
          actor_name: entry.actor.name,
          action: entry.action,
          entity_type: entry.entityType,
          entity_id: entry.entityId,
          details: JSON.stringify(entry.details),
          created_at: toIso(entry.createdAt),
        })
        .execute();
    },
    async list(query) {
      const { rows, totalCount } = await listRows(database, 'audit_log', AUDIT_FIELDS, query);
      return { items: rows.map(fromRow), totalCount };
    },
  };
}
