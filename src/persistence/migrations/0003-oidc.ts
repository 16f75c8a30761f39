/**
 * The OIDC provider's state (spec: OIDC authorization request states; docs/decisions/0006-oidc.md): authorization
 * requests (with the one-time code, stored only as its SHA-256), OIDC sessions (id = the `z_asid` claim of every
 * token issued in them) and refresh tokens (SHA-256 only, one row per rotation, so a replayed one is recognised).
 */
import type { Kysely, Migration } from 'kysely';

export const oidc: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('oidc_auth_requests')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('redirect_uri', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('state', 'text')
      .addColumn('nonce', 'text')
      .addColumn('code_challenge', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('issuer', 'text', (c) => c.notNull())
      .addColumn('identity_id', 'text', (c) => c.references('identities.id').onDelete('cascade'))
      /** JSON array of authentication method references (RFC 8176), set at login. */
      .addColumn('amr', 'text', (c) => c.notNull())
      /** started | code_issued | tokens_issued */
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('code_hash', 'text', (c) => c.unique())
      .addColumn('code_expires_at', 'text')
      .addColumn('api_session_id', 'text', (c) => c.notNull())
      .addColumn('auth_time', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('oidc_auth_requests_expires_at').on('oidc_auth_requests').column('expires_at').execute();

    await db.schema
      .createTable('oidc_sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('identity_id', 'text', (c) => c.notNull().references('identities.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('issuer', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('amr', 'text', (c) => c.notNull())
      .addColumn('auth_time', 'text', (c) => c.notNull())
      .addColumn('revoked_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('oidc_refresh_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('session_id', 'text', (c) => c.notNull().references('oidc_sessions.id').onDelete('cascade'))
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      /** active | rotated | revoked */
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('oidc_refresh_tokens_session').on('oidc_refresh_tokens').column('session_id').execute();
  },
};
