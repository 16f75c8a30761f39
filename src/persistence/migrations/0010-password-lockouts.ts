/**
 * Password lockout as its own state (issue 12, point 2): a failed-attempt counter and a lock per password
 * authenticator and scope, instead of disabling the identity. The scope is `*` for every client, or one client
 * address for the default admin, whose wrong guesses lock out only the address they came from (decision 0015).
 * The old per-authenticator counter goes: it was read after the password check, so concurrent guesses slipped past.
 */
import type { Kysely, Migration } from 'kysely';

export const passwordLockouts: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('password_lockouts')
      .addColumn('authenticator_id', 'text', (c) => c.notNull().references('authenticators.id').onDelete('cascade'))
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('identity_id', 'text', (c) => c.notNull().references('identities.id').onDelete('cascade'))
      /** Attempts counted since the last success or the end of the last lockout, each before its check. */
      .addColumn('attempts', 'integer', (c) => c.notNull())
      /** ISO time the lockout ends; null while not locked. */
      .addColumn('locked_until', 'text')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('password_lockouts_pk', ['authenticator_id', 'scope'])
      .execute();
    await db.schema.createIndex('password_lockouts_identity_id').on('password_lockouts').column('identity_id').execute();
    // Identities the old lockout disabled are left as they are: a timed lockout and an administrator's timed
    // disable look the same in the row, and the old ones end by themselves or by `enable`.
    await db.schema.alterTable('authenticators').dropColumn('failed_attempts').execute();
  },
};
