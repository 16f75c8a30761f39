/**
 * `used_idp_states` (issue 45): a SHA-256 hash of each `state` of a login-page sign-in at an external IdP that came
 * back to a callback, until the auth request it belongs to expires, so a callback URL is used once across every
 * controller sharing the store (it was remembered in one controller's memory). Only the hash is kept: a state is a
 * bearer value while its flow lives. The expiry index serves the housekeeping sweep.
 */
import type { Kysely, Migration } from 'kysely';

export const usedIdpStates: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('used_idp_states')
      .addColumn('state_hash', 'text', (c) => c.primaryKey())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('used_idp_states_expires_at').on('used_idp_states').column('expires_at').execute();
  },
};
