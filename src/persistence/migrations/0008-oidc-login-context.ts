/**
 * OIDC logins carry the config types the client asked for (issue 11, point 3): stored on the authorization request
 * at its primary login and on the session it leads to, from where they become the access tokens' `z_ct` claim
 * (JSON arrays of strings). Code exchanges are counted per code, so a code dies after a few wrong verifiers or
 * redirect URIs (issue 12, point 7). A rotated refresh token keeps when it was rotated and its successor, sealed, so
 * that a duplicate request within a short grace window gets the same successor (issue 12, point 8).
 */
import type { Kysely, Migration } from 'kysely';

export const oidcLoginContext: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('oidc_auth_requests').addColumn('config_types', 'text', (c) => c.notNull().defaultTo('[]')).execute();
    await db.schema.alterTable('oidc_sessions').addColumn('config_types', 'text', (c) => c.notNull().defaultTo('[]')).execute();
    await db.schema.alterTable('oidc_auth_requests').addColumn('code_attempts', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('oidc_refresh_tokens').addColumn('rotated_at', 'text').execute();
    await db.schema.alterTable('oidc_refresh_tokens').addColumn('successor_sealed', 'text').execute();
  },
};
