/**
 * `GET /audit-log` (administrators only): who did what to which entity, newest first; filterable by actor,
 * action, entity and time. Not a reference operation; its entries carry the reference's base entity fields like
 * every other entity (an entry never changes, so `updatedAt` is `createdAt`).
 */
import { Type } from 'typebox';
import type { RecordedAuditEntry } from '../../domain/audit.js';
import { FIELD_CHANGES, type FieldChange } from '../../services/audit/field-changes.js';
import { ApiErrorBody, DateTime, Links, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { listEnvelope } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';

export const AuditEntryView = Type.Object({
  id: Type.String(),
  time: Type.String({ format: 'date-time', description: 'when it happened (createdAt, named for the table a person reads)' }),
  sequence: Type.Integer({ description: 'the place in the trail: numbered as entries are written, it orders entries of the same instant' }),
  actorId: Type.Union([Type.String(), Type.Null()], { description: 'null for the controller itself' }),
  actorName: Type.String(),
  action: Type.String(),
  entityType: Type.String(),
  entityId: Type.String(),
  entityName: Type.String({ description: "the entity's name as the change recorded it, else its id" }),
  details: Type.Object({}, { additionalProperties: true, description: 'what changed; never secrets' }),
  changes: Type.Optional(
    Type.Array(Type.Object({ field: Type.String(), before: Type.Unknown(), after: Type.Unknown() }), {
      description: 'for updates: each field that changed, before and after (never secrets); absent for entries written before it was recorded',
    }),
  ),
  createdAt: DateTime,
  updatedAt: DateTime,
  tags: Type.Object({}),
  _links: Links,
});

/** Where the audited entity is read, for the entity types that have a collection (none has one for MFA). */
const COLLECTIONS = new Map([
  ['identity', 'identities'],
  ['auth-policy', 'auth-policies'],
  ['authenticator', 'authenticators'],
  ['enrollment', 'enrollments'],
  ['external-jwt-signer', 'external-jwt-signers'],
  ['config-type', 'config-types'],
  ['config', 'configs'],
  ['service', 'services'],
  ['edge-router', 'edge-routers'],
  ['posture-check', 'posture-checks'],
  ['terminator', 'terminators'],
  ['service-policy', 'service-policies'],
  ['edge-router-policy', 'edge-router-policies'],
  ['service-edge-router-policy', 'service-edge-router-policies'],
]);

const withoutFieldChanges = (details: Record<string, unknown>) => {
  const { [FIELD_CHANGES]: _changes, ...rest } = details;
  return rest;
};

/** An audit entry as sent (flat actor fields, named as the filter names them). */
export function auditEntryView(entry: RecordedAuditEntry) {
  const collection = COLLECTIONS.get(entry.entityType);
  return {
    id: entry.id,
    time: entry.createdAt.toISOString(),
    sequence: entry.sequence,
    actorId: entry.actor.id,
    actorName: entry.actor.name,
    action: entry.action,
    entityType: entry.entityType,
    entityId: entry.entityId,
    // The name as the change recorded it: still readable after the entity is deleted or renamed.
    entityName: typeof entry.details.name === 'string' ? entry.details.name : entry.entityId,
    details: withoutFieldChanges(entry.details),
    ...(Array.isArray(entry.details[FIELD_CHANGES]) ? { changes: entry.details[FIELD_CHANGES] as FieldChange[] } : {}),
    createdAt: entry.createdAt.toISOString(),
    updatedAt: entry.createdAt.toISOString(),
    tags: {},
    // No self link: entries are read only through the list. The audited entity, where it can be read (it may since
    // have been deleted).
    _links: collection ? { entity: { href: `./${collection}/${entry.entityId}` } } : {},
  };
}

/** The list's parameters plus the trail's own filters (joined to `filter` with `and`). */
const AuditLogQuery = Type.Object({
  ...ListQueryParams.properties,
  actorId: Type.Optional(Type.String({ description: 'only entries made by this identity' })),
  entityType: Type.Optional(Type.String({ description: 'only entries about this entity type, e.g. service-policy' })),
  entityId: Type.Optional(Type.String({ description: 'only entries about this entity (with entityType, answered by an index)' })),
  from: Type.Optional(Type.String({ description: 'ISO 8601 date-time: entries at or after it' })),
  to: Type.Optional(Type.String({ description: 'ISO 8601 date-time: entries before it' })),
});

export const auditLogRoutes = [
  defineRoute({
    method: 'GET',
    url: '/audit-log',
    operationId: 'listAuditLog',
    summary: 'Lists the audit trail of management mutations, newest first',
    tags: ['Audit'],
    access: 'admin',
    uses: ['audit'],
    schema: { querystring: AuditLogQuery, response: { 200: ListEnvelope(AuditEntryView), 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody } },
    handler: async ({ domains, query }) => {
      const page = await domains.audit.list(query);
      return listEnvelope(page.items.map(auditEntryView), page.pagination, page.filterableFields);
    },
  }),
];
