/**
 * Indexes for the audit trail's filters (issue 45): by actor and by entity, each in time order, so `actorId=…` or
 * `entityType=…&entityId=…` with `from`/`to` and the newest-first page read only that actor's or entity's entries,
 * never the whole trail. (The older (entity_type, entity_id) index is kept: dropping it buys nothing.)
 */
import type { Kysely, Migration } from 'kysely';

export const auditLogFilterIndexes: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex('audit_log_actor_time').on('audit_log').columns(['actor_id', 'created_at']).execute();
    await db.schema.createIndex('audit_log_entity_time').on('audit_log').columns(['entity_type', 'entity_id', 'created_at']).execute();
  },
};
