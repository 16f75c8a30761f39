/**
 * TOTP MFA (issue 5): one enrollment per identity with its sealed secret and recovery codes, replay and lockout
 * state; and the secondary factors a legacy API session still has to answer (spec: Legacy API session states).
 */
import type { Kysely, Migration } from 'kysely';

export const mfa: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('mfa_enrollments')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('identity_id', 'text', (c) => c.notNull().unique().references('identities.id').onDelete('cascade'))
      .addColumn('is_verified', 'boolean', (c) => c.notNull().defaultTo(false))
      /** AES-256-GCM sealed base32 secret (crypto/secret-box.ts). */
      .addColumn('secret_sealed', 'text', (c) => c.notNull())
      /** Sealed JSON array of the unused recovery codes. */
      .addColumn('recovery_codes_sealed', 'text', (c) => c.notNull())
      .addColumn('last_used_step', 'integer')
      .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('locked_until', 'text')
      .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .alterTable('api_sessions')
      /** JSON array of secondary factors still outstanding (`{kind: 'totp'}`); `[]` when fully authenticated. */
      .addColumn('outstanding_factors', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();
    // One column per statement: SQLite's ALTER TABLE adds one column at a time.
    await db.schema
      .alterTable('api_sessions')
      /** Whether TOTP was required when the session started (the session's `isMfaRequired`). */
      .addColumn('mfa_required', 'boolean', (c) => c.notNull().defaultTo(false))
      .execute();
  },
};
