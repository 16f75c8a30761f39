/**
 * What logins say about the client and what a legacy session stands on (issue 11, points 3 and 7): the identity's
 * `sdkInfo` and `envInfo` from its last primary login (JSON objects), and the API session's `configTypes` (JSON
 * array, as asked for at login) and the authenticator that proved it. Defaults fill the rows that already exist.
 */
import type { Kysely, Migration } from 'kysely';

export const clientInfo: Migration = {
  async up(db: Kysely<any>) {
    // One column per statement: SQLite's ALTER TABLE adds one column at a time.
    await db.schema.alterTable('identities').addColumn('sdk_info', 'text', (c) => c.notNull().defaultTo('{}')).execute();
    await db.schema.alterTable('identities').addColumn('env_info', 'text', (c) => c.notNull().defaultTo('{}')).execute();
    await db.schema.alterTable('api_sessions').addColumn('config_types', 'text', (c) => c.notNull().defaultTo('[]')).execute();
    // Sessions opened before this migration did not record it; '' is what the API shows for an unknown one.
    await db.schema.alterTable('api_sessions').addColumn('authenticator_id', 'text', (c) => c.notNull().defaultTo('')).execute();
  },
};
