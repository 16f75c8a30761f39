/**
 * The audit trail's own query parameters (`actorId`, `entityType`, `entityId`, `from`, `to`), turned into filter
 * conditions joined to the `filter` expression with `and`, so they use the same compiled, parameterized SQL and the
 * (entity_type, entity_id) index; a bad time names its parameter.
 */
import { ApiError } from '../../errors/api-error.js';
import type { FilterExpr } from '../../persistence/query/list-query.js';

export interface AuditFilterParams {
  actorId?: string;
  entityType?: string;
  entityId?: string;
  from?: string;
  to?: string;
}

/** ISO 8601 date-time with an explicit zone, as the console sends it. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function timeParam(name: 'from' | 'to', value: string): string {
  const time = ISO_TIME.test(value) ? new Date(value) : undefined;
  if (!time || Number.isNaN(time.getTime())) {
    throw new ApiError('INVALID_FILTER', {
      message: `${name}: expected an ISO 8601 date-time such as 2026-01-31T12:00:00Z, got '${value}'`,
      cause: { field: name, reason: 'not an ISO 8601 date-time', value },
    });
  }
  return time.toISOString();
}

/** The conditions the parameters ask for, `from` inclusive and `to` exclusive; none when no parameter is given. */
export function auditFilterConditions(params: AuditFilterParams): FilterExpr[] {
  const conditions: FilterExpr[] = [];
  for (const field of ['actorId', 'entityType', 'entityId'] as const) {
    const value = params[field];
    if (value !== undefined) conditions.push({ kind: 'compare', field, operator: '=', value });
  }
  if (params.from !== undefined) conditions.push({ kind: 'compare', field: 'createdAt', operator: '>=', value: timeParam('from', params.from) });
  if (params.to !== undefined) conditions.push({ kind: 'compare', field: 'createdAt', operator: '<', value: timeParam('to', params.to) });
  return conditions;
}
