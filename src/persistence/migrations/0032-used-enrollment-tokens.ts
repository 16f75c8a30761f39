/**
 * `used_enrollment_tokens` (issue 44): a SHA-256 hash of each enrollment token that enrolled something (an identity's
 * ott, updb, or an edge router's), with when, so a second use of the same JWT is told "already used" instead of
 * "unknown" (a consumed enrollment leaves no row of its own). Only the hash is kept: the token itself is a credential.
 */
import type { Kysely, Migration } from 'kysely';

export const usedEnrollmentTokens: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('used_enrollment_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('used_at', 'text', (c) => c.notNull())
      .execute();
  },
};
