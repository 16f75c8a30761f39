/**
 * What an OIDC login used, kept on its session as a legacy session keeps it (issues 16 and 18; decision 0038):
 * - `authenticator_id` and `ip_address` on `oidc_auth_requests` (written at the primary login) and on `oidc_sessions`
 *   (copied at the code exchange): the session view's `authenticatorId` and `ipAddress`, the certificate extension
 *   flags of a certificate login, and administrators' `/api-sessions`. Null for sessions opened before this migration
 *   and where a login names none.
 * - `last_extend_rolled_keys` on `authenticators`: whether the last verified extension changed the public key.
 */
import type { Kysely, Migration } from 'kysely';

export const oidcSessionAuthenticator: Migration = {
  async up(db: Kysely<any>) {
    for (const table of ['oidc_auth_requests', 'oidc_sessions']) {
      await db.schema.alterTable(table).addColumn('authenticator_id', 'text').execute();
      await db.schema.alterTable(table).addColumn('ip_address', 'text').execute();
    }
    await db.schema.alterTable('authenticators').addColumn('last_extend_rolled_keys', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
  },
};
