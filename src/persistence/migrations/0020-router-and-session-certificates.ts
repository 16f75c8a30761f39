/**
 * Certificates the controller issues after enrollment (issue 16, part B; docs/decisions/0038-router-enrollment-and-certificate-extension.md):
 * - `enrollment_signing_keys`: the public key of every key that has signed enrollment JWTs, by `kid`, so the
 *   enrollment JWKS can keep publishing a retired key while a JWT it signed is still live;
 * - `api_session_certificates`: ephemeral client certificates bound to one API session;
 * - on `authenticators`, the certificate an extension issued and that awaits `extend-verify`, and the
 *   administrator's request to extend (and roll keys).
 */
import type { Kysely, Migration } from 'kysely';

export const routerAndSessionCertificates: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('enrollment_signing_keys')
      .addColumn('kid', 'text', (c) => c.primaryKey())
      .addColumn('public_jwk', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('api_session_certificates')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('api_session_id', 'text', (c) => c.notNull())
      // The session row it belongs to, one of the two: ending the session deletes its certificates (as edge sessions).
      .addColumn('legacy_session_id', 'text', (c) => c.references('api_sessions.id').onDelete('cascade'))
      .addColumn('oidc_session_id', 'text', (c) => c.references('oidc_sessions.id').onDelete('cascade'))
      .addColumn('identity_id', 'text', (c) => c.notNull().references('identities.id').onDelete('cascade'))
      // SHA-256 of the legacy session token, to authenticate as that session; null for OIDC sessions.
      .addColumn('session_token_hash', 'text')
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull().unique())
      .addColumn('cert_pem', 'text', (c) => c.notNull())
      .addColumn('valid_from', 'text', (c) => c.notNull())
      .addColumn('valid_to', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('api_session_certificates_session').on('api_session_certificates').column('api_session_id').execute();
    await db.schema.alterTable('authenticators').addColumn('unverified_cert_pem', 'text').execute();
    await db.schema.alterTable('authenticators').addColumn('unverified_cert_fingerprint', 'text').execute();
    await db.schema.alterTable('authenticators').addColumn('is_extend_requested', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
    await db.schema.alterTable('authenticators').addColumn('is_key_roll_requested', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
    await db.schema.alterTable('authenticators').addColumn('extend_requested_at', 'text').execute();
  },
};
