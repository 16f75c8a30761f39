/**
 * The credential look-ups primary authentication needs: a password authenticator by username, a certificate
 * authenticator by fingerprint, the identity a third-party CA's externalIdClaim names. Failed attempts and lockout
 * live in password-lockouts.ts.
 */
import { atomically } from '../unit-of-work.js';
import { usernameKey } from '../../policy/names.js';
import type { Database } from '../database.js';
import { recordChange } from './authorization-changes.js';
import { toIso } from './row-values.js';
import { isUsernameConflict, reclaimUsername, usernameHeld } from './usernames.js';

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
  /** By the username's key (policy/names.ts usernameKey): `Alice` finds `alice`. */
  findPassword(username: string): Promise<PasswordCredential | undefined>;
  findPasswordById(authenticatorId: string): Promise<PasswordCredential | undefined>;
  /** Whether a password authenticator other than `exceptId`, or a pending updb enrollment, holds the key of `username`. */
  usernameTaken(username: string, exceptId: string): Promise<boolean>;
  /**
   * Sets the username (with its key and claim) and password hash of a password authenticator, in one transaction;
   * false, changing nothing, when another holds the username's key (the unique index settles a race).
   */
  updatePassword(authenticatorId: string, change: { username: string; passwordHash: string; at: Date }): Promise<boolean>;
  findCert(fingerprint: string): Promise<CertCredential | undefined>;
  /**
   * The identity whose externalId is exactly `externalId` (unique, indexed): a third-party CA's claim names it; with
   * whether it holds a certificate authenticator enrolled through the CA `caId` (migration 0026).
   */
  findExternalIdHolder(externalId: string, caId: string): Promise<{ identityId: string; enrolledThroughCa: boolean } | undefined>;
}

export function createCredentialRepository(database: Database): CredentialRepository {
  const { db } = database;
  async function findPasswordWhere(column: 'id' | 'username_key', value: string): Promise<PasswordCredential | undefined> {
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
    findPassword: (username) => findPasswordWhere('username_key', usernameKey(username)),
    findPasswordById: (authenticatorId) => findPasswordWhere('id', authenticatorId),
    usernameTaken: (username, exceptId) => usernameHeld(db, username, exceptId),
    async updatePassword(authenticatorId, { username, passwordHash, at }) {
      try {
        await atomically(db, async (trx) => {
          const row = await trx
            .updateTable('authenticators')
            .set({ username, username_key: usernameKey(username), password_hash: passwordHash, updated_at: toIso(at) })
            .where('id', '=', authenticatorId)
            .returning('identity_id')
            .executeTakeFirst();
          await reclaimUsername(trx, authenticatorId, username, toIso(at));
          // The identity's detail shows its authenticators (decision 0035).
          if (row) await recordChange({ ...database, db: trx }, 'identity', row.identity_id);
        });
        return true;
      } catch (error) {
        if (isUsernameConflict(error)) return false;
        throw error;
      }
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
    async findExternalIdHolder(externalId, caId) {
      const row = await db
        .selectFrom('identities')
        .select((eb) => [
          'identities.id',
          eb
            .exists(eb.selectFrom('authenticators').select('authenticators.id').whereRef('authenticators.identity_id', '=', 'identities.id').where('authenticators.ca_id', '=', caId))
            .as('enrolled'),
        ])
        .where('external_id', '=', externalId)
        .executeTakeFirst();
      return row && { identityId: row.id, enrolledThroughCa: Boolean(row.enrolled) };
    },
  };
}
