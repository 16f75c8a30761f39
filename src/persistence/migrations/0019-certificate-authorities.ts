/**
 * Third-party certificate authorities (issue 16; docs/decisions/0037-third-party-cas.md): one row per registered CA,
 * unique by name and by certificate fingerprint; and the CA an `ottca` enrollment names (its pending enrollments go
 * with the CA).
 */
import { sql, type Kysely, type Migration } from 'kysely';

export const certificateAuthorities: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('cas')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('cert_pem', 'text', (c) => c.notNull())
      /** SHA-1 hex of the certificate's DER: one registration per certificate. */
      .addColumn('fingerprint', 'text', (c) => c.notNull().unique())
      .addColumn('is_verified', 'boolean', (c) => c.notNull().defaultTo(sql.lit(false)))
      .addColumn('verification_token', 'text', (c) => c.notNull())
      .addColumn('is_auth_enabled', 'boolean', (c) => c.notNull().defaultTo(sql.lit(false)))
      .addColumn('is_auto_ca_enrollment_enabled', 'boolean', (c) => c.notNull().defaultTo(sql.lit(false)))
      .addColumn('is_ott_ca_enrollment_enabled', 'boolean', (c) => c.notNull().defaultTo(sql.lit(false)))
      /** JSON array of role attributes. */
      .addColumn('identity_roles', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('identity_name_format', 'text', (c) => c.notNull())
      /** JSON object (ExternalIdClaim) or null. */
      .addColumn('external_id_claim', 'text')
      .addColumn('tags', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    /** The CA of an `ottca` enrollment; null for every other method. */
    await db.schema
      .alterTable('enrollments')
      .addColumn('ca_id', 'text', (c) => c.references('cas.id').onDelete('cascade'))
      .execute();
  },
};
