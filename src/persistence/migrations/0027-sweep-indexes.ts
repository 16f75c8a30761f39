/**
 * Indexes for the housekeeping sweep of dead client state (issue 40; decision 0058):
 * - `api_sessions.last_activity_at`: the sweep finds legacy sessions past their timeout oldest first, without reading
 *   every session;
 * - `api_session_certificates.legacy_session_id` and `.oidc_session_id`: deleting a session cascades to its
 *   ephemeral certificates through these columns, which had no index, so each deleted session read the whole table;
 * - `api_session_certificates.valid_to`: the sweep finds expired certificates, and a session counts its unexpired ones.
 */
import type { Kysely, Migration } from 'kysely';

export const sweepIndexes: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex('api_sessions_last_activity').on('api_sessions').column('last_activity_at').execute();
    await db.schema.createIndex('api_session_certificates_legacy_session').on('api_session_certificates').column('legacy_session_id').execute();
    await db.schema.createIndex('api_session_certificates_oidc_session').on('api_session_certificates').column('oidc_session_id').execute();
    await db.schema.createIndex('api_session_certificates_valid_to').on('api_session_certificates').column('valid_to').execute();
  },
};
