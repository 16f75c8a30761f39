/**
 * `GET /audit-log` (administrators only): who did what to which entity, newest first; filterable by actor,
 * action, entity and time.
 */
import { Type } from 'typebox';
import type { AuditEntry } from '../../domain/audit.js';
import { ApiErrorBody, DateTime, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { listEnvelope } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';

export const AuditEntryView = Type.Object({
  id: Type.String(),
  actorId: Type.Union([Type.String(), Type.Null()], { description: 'null for the controller itself' }),
  actorName: Type.String(),
  action: Type.String(),
  entityType: Type.String(),
  entityId: Type.String(),
  details: Type.Object({}, { additionalProperties: true, description: 'what changed; never secrets' }),
  createdAt: DateTime,
});

/** An audit entry as sent (flat actor fields, named as the filter names them). */
export function auditEntryView(entry: AuditEntry) {
  return {
    id: entry.id,
    actorId: entry.actor.id,
    actorName: entry.actor.name,
    action: entry.action,
    entityType: entry.entityType,
    entityId: entry.entityId,
    details: entry.details,
    createdAt: entry.createdAt.toISOString(),
  };
}

export const auditLogRoutes = [
  defineRoute({
    method: 'GET',
    url: '/audit-log',
    operationId: 'listAuditLog',
    summary: 'Lists the audit trail of management mutations, newest first',
    tags: ['Audit'],
    access: 'admin',
    schema: { querystring: ListQueryParams, response: { 200: ListEnvelope(AuditEntryView), 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody } },
    handler: async ({ api, query }) => {
      const page = await api.services.audit.list(query);
      return listEnvelope(page.items.map(auditEntryView), page.pagination, page.filterableFields);
    },
  }),
];
