/**
 * Identities can enroll and be governed: enrollments (one-time tokens), auth policies with the system `default`
 * policy, per-authenticator failed-attempt counting, and the audit trail of every management mutation.
 */
import { sql, type Kysely, type Migration } from 'kysely';

/** The system policy identities without one use (values of the reference's `default` policy). */
export const DEFAULT_AUTH_POLICY_BODY = {
  primary: {
    cert: { allowed: true, allowExpiredCerts: true },
    updb: {
      allowed: true,
      minPasswordLength: 5,
      requireSpecialChar: false,
      requireNumberChar: false,
      requireMixedCase: false,
      maxAttempts: 0,
      lockoutDurationMinutes: 0,
    },
    extJwt: { allowed: true, allowedSigners: [] as string[] },
  },
  secondary: { requireTotp: false, requireExtJwt: null as string | null },
};

export const identitiesEnrollmentPolicies: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('auth_policies')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('is_system', 'boolean', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('tags', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    const now = new Date().toISOString();
    await db
      .insertInto('auth_policies')
      .values({ id: 'default', name: 'Default', is_system: sql.lit(true), body: JSON.stringify(DEFAULT_AUTH_POLICY_BODY), tags: '{}', created_at: now, updated_at: now })
      .execute();

    await db.schema
      .createTable('enrollments')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('identity_id', 'text', (c) => c.notNull().references('identities.id').onDelete('cascade'))
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('token', 'text', (c) => c.notNull().unique())
      .addColumn('username', 'text')
      .addColumn('jwt', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('enrollments_identity_method', ['identity_id', 'method'])
      .execute();

    await db.schema.alterTable('authenticators').addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('authenticators').addColumn('is_issued_by_network', 'boolean', (c) => c.notNull().defaultTo(sql.lit(false))).execute();

    await db.schema
      .createTable('audit_log')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('actor_id', 'text')
      .addColumn('actor_name', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('entity_type', 'text', (c) => c.notNull())
      .addColumn('entity_id', 'text', (c) => c.notNull())
      .addColumn('details', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('audit_log_entity').on('audit_log').columns(['entity_type', 'entity_id']).execute();
  },
};
