/**
 * OIDC logins carry the config types the client asked for (issue 11, point 3): stored on the authorization request
 * at its primary login and on the session it leads to, from where they become the access tokens' `z_ct` claim.
 * JSON arrays of strings.
 */
import type { Kysely, Migration } from 'kysely';

export const oidcLoginContext: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('oidc_auth_requests').addColumn('config_types', 'text', (c) => c.notNull().defaultTo('[]')).execute();
    await db.schema.alterTable('oidc_sessions').addColumn('config_types', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  },
};
