/**
 * Posture responses (issue 15, item 6; docs/decisions/0029-posture-responses.md): what a client reported about its
 * device, one row per (API session, slot). A slot is one fact the evaluator reads: the OS, the MAC addresses, the
 * Windows domain, one process by path, the last wake or unlock, the last TOTP answer. Rows belong to one API session
 * of either kind and go with it: each names its session in the column of its kind, whose foreign key cascades, so a
 * logout, an expiry that deletes the session, or an identity's delete removes them in the same statement.
 */
import type { Kysely, Migration } from 'kysely';

export const postureResponses: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('posture_responses')
      /** The API session's id, whichever kind: the key the evaluator reads by. */
      .addColumn('session_id', 'text', (c) => c.notNull())
      /** `OS`, `MAC`, `DOMAIN`, `PROCESS:<path>`, `ENDPOINT_STATE:woken`, `ENDPOINT_STATE:unlocked` or `MFA`. */
      .addColumn('slot', 'text', (c) => c.notNull())
      /** Set for a legacy API session (and then the other is null). */
      .addColumn('legacy_session_id', 'text', (c) => c.references('api_sessions.id').onDelete('cascade'))
      /** Set for an OIDC API session (`z_asid`). */
      .addColumn('oidc_session_id', 'text', (c) => c.references('oidc_sessions.id').onDelete('cascade'))
      /** The response's `typeId` as posted (PROCESS answers a PROCESS_MULTI check too). */
      .addColumn('type_id', 'text', (c) => c.notNull())
      /** The response's own fields, JSON. */
      .addColumn('body', 'text', (c) => c.notNull())
      /** When the controller received it (ISO text). */
      .addColumn('received_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('posture_responses_pk', ['session_id', 'slot'])
      .execute();
    // The cascades look rows up by these columns.
    await db.schema.createIndex('posture_responses_legacy_session').on('posture_responses').column('legacy_session_id').execute();
    await db.schema.createIndex('posture_responses_oidc_session').on('posture_responses').column('oidc_session_id').execute();
  },
};
