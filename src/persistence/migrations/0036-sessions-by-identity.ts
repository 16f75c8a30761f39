/**
 * Indexes that find an identity's API sessions (issue 45: the reach page judges an identity's posture checks on
 * what its live sessions reported, and the change preview of a posture check does so for many identities). Without
 * them each look-up scanned every session of the network; with them it reads the identity's own few rows, newest
 * first.
 */
import type { Kysely, Migration } from 'kysely';

export const sessionsByIdentity: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex('api_sessions_identity_created').on('api_sessions').columns(['identity_id', 'created_at']).execute();
    await db.schema.createIndex('oidc_sessions_identity_created').on('oidc_sessions').columns(['identity_id', 'created_at']).execute();
  },
};
