/**
 * Authorization codes carry their own grant and are not stored (decision 0046). What is stored of a code is only what
 * its refusals leave: how many token requests it was refused in, keyed by the session id sealed into it, so a code
 * dies after a few wrong verifiers or redirect URIs (RFC 9700 §2.1.1) on every controller. A row lives as long as its
 * code (housekeeping removes it after `expires_at`).
 */
import type { Kysely, Migration } from 'kysely';

export const oidcCodeRefusals: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('oidc_code_refusals')
      .addColumn('session_id', 'text', (c) => c.primaryKey())
      .addColumn('refusals', 'integer', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('oidc_code_refusals_expires_at').on('oidc_code_refusals').column('expires_at').execute();
  },
};
