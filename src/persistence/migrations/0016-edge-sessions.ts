/**
 * Sessions of the client API (issue 15, item 3; docs/decisions/0031-edge-sessions.md): one row per (API session,
 * service, type). A row belongs to one API session of either kind and goes with it, as posture responses do
 * (migration 0015): the column of its kind holds a foreign key that cascades, so a logout, the delete of an expired
 * legacy session and an identity's delete remove its sessions in the same statement; an OIDC session is revoked, not
 * deleted, and the revocation deletes them in its transaction. A deleted service takes its sessions with it.
 */
import type { Kysely, Migration } from 'kysely';

export const edgeSessions: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('edge_sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      /** The API session's id, whichever kind: what lists and the uniqueness read by. */
      .addColumn('api_session_id', 'text', (c) => c.notNull())
      /** Set for a legacy API session (and then the other is null). */
      .addColumn('legacy_session_id', 'text', (c) => c.references('api_sessions.id').onDelete('cascade'))
      /** Set for an OIDC API session (`z_asid`). */
      .addColumn('oidc_session_id', 'text', (c) => c.references('oidc_sessions.id').onDelete('cascade'))
      .addColumn('identity_id', 'text', (c) => c.notNull().references('identities.id').onDelete('cascade'))
      .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
      /** `Dial` or `Bind`. */
      .addColumn('type', 'text', (c) => c.notNull())
      /** JSON object. */
      .addColumn('tags', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    // One session per (API session, service, type): creating it again answers the same one. Also the list's index.
    await db.schema.createIndex('edge_sessions_api_session_service_type').on('edge_sessions').columns(['api_session_id', 'service_id', 'type']).unique().execute();
    // The cascades look rows up by these columns.
    await db.schema.createIndex('edge_sessions_legacy_session').on('edge_sessions').column('legacy_session_id').execute();
    await db.schema.createIndex('edge_sessions_oidc_session').on('edge_sessions').column('oidc_session_id').execute();
    await db.schema.createIndex('edge_sessions_identity').on('edge_sessions').column('identity_id').execute();
    await db.schema.createIndex('edge_sessions_service').on('edge_sessions').column('service_id').execute();
  },
};
