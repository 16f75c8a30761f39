/**
 * First schema: controllers (one row per controller sharing the store), identities, their authenticators,
 * and legacy API sessions (token stored only as a hash).
 */
import type { Kysely, Migration } from 'kysely';

export const initialSchema: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('controllers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('cert_pem', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('api_addresses', 'text', (c) => c.notNull())
      .addColumn('is_online', 'boolean', (c) => c.notNull())
      .addColumn('last_joined_at', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('identities')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('type_id', 'text', (c) => c.notNull())
      .addColumn('is_admin', 'boolean', (c) => c.notNull())
      .addColumn('is_default_admin', 'boolean', (c) => c.notNull())
      .addColumn('auth_policy_id', 'text')
      .addColumn('external_id', 'text', (c) => c.unique())
      .addColumn('role_attributes', 'text', (c) => c.notNull())
      .addColumn('tags', 'text', (c) => c.notNull())
      .addColumn('disabled', 'boolean', (c) => c.notNull())
      .addColumn('disabled_at', 'text')
      .addColumn('disabled_until', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('authenticators')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('identity_id', 'text', (c) => c.notNull().references('identities.id').onDelete('cascade'))
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('username', 'text', (c) => c.unique())
      .addColumn('password_hash', 'text')
      .addColumn('cert_fingerprint', 'text', (c) => c.unique())
      .addColumn('cert_pem', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('authenticators_identity_id').on('authenticators').column('identity_id').execute();

    await db.schema
      .createTable('api_sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('identity_id', 'text', (c) => c.notNull().references('identities.id').onDelete('cascade'))
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('auth_method', 'text', (c) => c.notNull())
      .addColumn('ip_address', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_activity_at', 'text', (c) => c.notNull())
      .execute();
  },
};
