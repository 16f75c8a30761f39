/**
 * The credential look-ups primary authentication needs: a password authenticator by username, a certificate
 * authenticator by fingerprint, and the failed-attempt counter behind the auth policy's lockout.
 */
import type { Database } from '../database.js';
import { toIso, toIsoOrNull } from './row-values.js';

export interface PasswordCredential {
  authenticatorId: string;
  identityId: string;
  passwordHash: string;
}

export interface CertCredential {
  authenticatorId: string;
  identityId: string;
}

export interface CredentialRepository {
  findPassword(username: string): Promise<PasswordCredential | undefined>;
  findPasswordById(authenticatorId: string): Promise<PasswordCredential | undefined>;
  /** Whether a password authenticator other than `exceptId` already uses `username`. */
  usernameTaken(username: string, exceptId: string): Promise<boolean>;
  /** Sets the username and password hash of a password authenticator. */
  updatePassword(authenticatorId: string, change: { username: string; passwordHash: string; at: Date }): Promise<void>;
  findCert(fingerprint: string): Promise<CertCredential | undefined>;
  /** Counts one more failed attempt and returns the new count (atomically, so parallel guesses all count). */
  recordFailure(authenticatorId: string): Promise<number>;
  resetFailures(authenticatorId: string): Promise<void>;
  /** Locks an identity out: disabled from `at`, until `until` (null = until an administrator enables it). */
  lockIdentity(identityId: string, at: Date, until: Date | null): Promise<void>;
}

export function createCredentialRepository({ db }: Database): CredentialRepository {
  async function findPasswordWhere(column: 'id' | 'username', value: string): Promise<PasswordCredential | undefined> {
    const row = await db
      .selectFrom('authenticators')
      .select(['id', 'identity_id', 'password_hash'])
      .where('method', '=', 'updb')
      .where(column, '=', value)
      .executeTakeFirst();
    if (!row || row.password_hash === null) return undefined;
    return { authenticatorId: row.id, identityId: row.identity_id, passwordHash: row.password_hash };
  }

  return {
    findPassword: (username) => findPasswordWhere('username', username),
    findPasswordById: (authenticatorId) => findPasswordWhere('id', authenticatorId),
    async usernameTaken(username, exceptId) {
      const row = await db.selectFrom('authenticators').select('id').where('username', '=', username).where('id', '!=', exceptId).executeTakeFirst();
      return row !== undefined;
    },
    async updatePassword(authenticatorId, { username, passwordHash, at }) {
      await db
        .updateTable('authenticators')
        .set({ username, password_hash: passwordHash, failed_attempts: 0, updated_at: toIso(at) })
        .where('id', '=', authenticatorId)
        .execute();
    },
    async findCert(fingerprint) {
      const row = await db
        .selectFrom('authenticators')
        .select(['id', 'identity_id'])
        .where('method', '=', 'cert')
        .where('cert_fingerprint', '=', fingerprint)
        .executeTakeFirst();
      return row && { authenticatorId: row.id, identityId: row.identity_id };
    },
    async recordFailure(authenticatorId) {
      const row = await db
        .updateTable('authenticators')
        .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1) }))
        .where('id', '=', authenticatorId)
        .returning('failed_attempts')
        .executeTakeFirst();
      return row?.failed_attempts ?? 0;
    },
    async resetFailures(authenticatorId) {
      await db.updateTable('authenticators').set({ failed_attempts: 0 }).where('id', '=', authenticatorId).where('failed_attempts', '>', 0).execute();
    },
    async lockIdentity(identityId, at, until) {
      await db
        .updateTable('identities')
        .set({ disabled: true, disabled_at: toIso(at), disabled_until: toIsoOrNull(until), updated_at: toIso(at) })
        .where('id', '=', identityId)
        .execute();
    },
  };
}
