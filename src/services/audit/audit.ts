/**
 * Records management mutations with their actor, and lists the trail (`GET /edge/management/v1/audit-log`).
 */
import type { Actor, RecordedAuditEntry } from '../../domain/audit.js';
import type { RawListParams } from '../../persistence/query/list-query.js';
import { parseListParams } from '../../persistence/query/list-query.js';
import { AUDIT_FIELDS, type AuditLogRepository } from '../../persistence/repositories/audit-log.js';
import type { Clock } from '../../shared/clock.js';
import { newEntityId } from '../../shared/random.js';
import type { ListPage } from '../list-page.js';
import { auditFilterConditions, type AuditFilterParams } from './audit-filters.js';

export interface AuditService {
  record(actor: Actor, action: string, entityType: string, entityId: string, details?: Record<string, unknown>): Promise<void>;
  list(params: RawListParams & AuditFilterParams): Promise<ListPage<RecordedAuditEntry>>;
}

export function createAuditService(deps: { auditLog: AuditLogRepository; clock: Clock }): AuditService {
  return {
    async record(actor, action, entityType, entityId, details = {}) {
      await deps.auditLog.append({ id: newEntityId(), actor, action, entityType, entityId, details, createdAt: deps.clock.now() });
    },
    async list(params) {
      // Entries of the same millisecond are told apart by the order they were written in.
      const query = parseListParams(params, AUDIT_FIELDS, [
        { field: 'createdAt', direction: 'desc' },
        { field: 'sequence', direction: 'desc' },
      ]);
      const conditions = auditFilterConditions(params);
      if (conditions.length > 0) query.where = { kind: 'and', operands: query.where ? [query.where, ...conditions] : conditions };
      const { items, totalCount } = await deps.auditLog.list(query);
      return { items, pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields: Object.keys(AUDIT_FIELDS) };
    },
  };
}
