/**
 * When each identity's service list last changed (issue 15, item 5; docs/decisions/0032-client-services.md): one row
 * per identity that has polled `GET /current-api-session/service-updates`, with the fingerprint of its list as last
 * seen and the time it changed. Kept in the store, so every controller answers the same time and a restart changes
 * nothing.
 */
import type { Kysely, Migration } from 'kysely';

export const serviceUpdateMarks: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('service_update_marks')
      .addColumn('identity_id', 'text', (c) => c.primaryKey().references('identities.id').onDelete('cascade'))
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('changed_at', 'text', (c) => c.notNull())
      .execute();
  },
};
