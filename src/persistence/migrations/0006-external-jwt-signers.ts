/**
 * External JWT signers (issue 6): the providers whose JWTs identify callers. One row per signer; the key source is
 * either a certificate or a JWKS endpoint (the service keeps exactly one set). Scopes and tags are JSON text.
 */
import { sql, type Kysely, type Migration } from 'kysely';

export const externalJwtSigners: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('external_jwt_signers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('issuer', 'text', (c) => c.notNull())
      .addColumn('audience', 'text', (c) => c.notNull())
      .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(sql.lit(true)))
      .addColumn('cert_pem', 'text')
      .addColumn('jwks_endpoint', 'text')
      .addColumn('kid', 'text')
      .addColumn('claims_property', 'text', (c) => c.notNull())
      .addColumn('use_external_id', 'boolean', (c) => c.notNull().defaultTo(sql.lit(false)))
      .addColumn('external_auth_url', 'text')
      .addColumn('client_id', 'text')
      /** JSON array of strings. */
      .addColumn('scopes', 'text', (c) => c.notNull().defaultTo('[]'))
      /** `ACCESS` or `ID`. */
      .addColumn('target_token', 'text', (c) => c.notNull())
      .addColumn('tags', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    // Logins look signers up by the token's issuer.
    await db.schema.createIndex('external_jwt_signers_issuer').on('external_jwt_signers').column('issuer').execute();
  },
};
