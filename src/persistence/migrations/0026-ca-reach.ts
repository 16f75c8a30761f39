/**
 * What a third-party CA vouched for, so that its withdrawal can end it and its claims stay inside it (issue 40;
 * decision 0057):
 * - `ca_id` on `authenticators`: the CA a certificate authenticator was enrolled through (ottca, CA auto-enrollment);
 *   an identity holding one is "enrolled through" that CA, whose externalIdClaim may then log it in. Null for
 *   certificates this controller issued, and for authenticators enrolled before this migration.
 * - `ca_id` on `api_sessions`, `oidc_auth_requests` and `oidc_sessions`: the third-party CA the login chain reached
 *   (copied from the request to the session at the code exchange). Null when it reached one of the controller's own
 *   CAs, for other login methods, and for sessions opened before this migration.
 * No foreign keys: a deleted CA's sessions are ended by the service in the same transaction, and an authenticator
 * outlives the CA it came through (it can no longer log in, but an administrator may still read it).
 */
import type { Kysely, Migration } from 'kysely';

export const caReach: Migration = {
  async up(db: Kysely<any>) {
    for (const table of ['authenticators', 'api_sessions', 'oidc_auth_requests', 'oidc_sessions']) {
      await db.schema.alterTable(table).addColumn('ca_id', 'text').execute();
    }
    await db.schema.createIndex('authenticators_ca').on('authenticators').column('ca_id').execute();
    await db.schema.createIndex('api_sessions_ca').on('api_sessions').column('ca_id').execute();
    await db.schema.createIndex('oidc_sessions_ca').on('oidc_sessions').column('ca_id').execute();
  },
};
