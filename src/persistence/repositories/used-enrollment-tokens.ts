/**
 * The hashes of enrollment tokens that enrolled something (migration 0032), written in the same transaction that
 * consumes the enrollment, and read when a token matches no pending enrollment: so a second use of a JWT is told
 * "already used, at …" rather than "unknown". Identity (ott, updb) and edge-router enrollments share it.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Tables } from '../tables.js';
import { toDate, toIso } from './row-values.js';

/** Records that the token hashed `tokenHash` was used at `at` (a repeat changes nothing). */
export async function recordUsedToken(db: Kysely<Tables> | Transaction<Tables>, tokenHash: string, at: Date): Promise<void> {
  await db.insertInto('used_enrollment_tokens').values({ token_hash: tokenHash, used_at: toIso(at) }).onConflict((c) => c.column('token_hash').doNothing()).execute();
}

/** When the token hashed `tokenHash` was used, or undefined when it never was. */
export async function usedTokenAt(db: Kysely<Tables>, tokenHash: string): Promise<Date | undefined> {
  const row = await db.selectFrom('used_enrollment_tokens').select('used_at').where('token_hash', '=', tokenHash).executeTakeFirst();
  return row ? toDate(row.used_at) : undefined;
}
