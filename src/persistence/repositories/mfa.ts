/**
 * TOTP enrollments in the store. Secrets and recovery codes are sealed on the way in and opened on the way out
 * (the SecretBox binds each to its identity), and the state changes that must not race are single conditional
 * UPDATEs: accepting a code's time step, counting a failure, replacing the recovery codes of one revision.
 */
import type { SecretBox } from '../../crypto/secret-box.js';
import type { MfaEnrollment } from '../../domain/mfa.js';
import type { Database } from '../database.js';
import type { MfaEnrollmentsTable } from '../tables.js';
import { recordChange } from './authorization-changes.js';
import { toBool, toDate, toDateOrNull, toIso, toIsoOrNull } from './row-values.js';
import { atomically } from '../unit-of-work.js';

export interface MfaRepository {
  /** Inserts a pending enrollment; a unique violation means the identity already has one. */
  insert(enrollment: MfaEnrollment): Promise<void>;
  findByIdentity(identityId: string): Promise<MfaEnrollment | undefined>;
  /** Whether the identity has a verified enrollment (no secrets opened). */
  isVerified(identityId: string): Promise<boolean>;
  /** Those of `identityIds` that have a verified enrollment (one query for a page of identities). */
  verifiedAmong(identityIds: readonly string[]): Promise<Set<string>>;
  /**
   * Accepts a code of time `step`: records the step, clears failures and, with `verify`, marks the enrollment
   * verified. False when a code of this step or a later one was already accepted (a replay), the enrollment is
   * locked at `at`, or the row is gone.
   */
  acceptStep(id: string, step: number, at: Date, options?: { verify?: boolean }): Promise<boolean>;
  /**
   * Counts an attempt before its code is checked, in one statement, so concurrent guesses cannot all slip past the
   * limit: returns the attempts since the last success, or undefined while the enrollment is locked at `at`.
   */
  countAttempt(id: string, at: Date): Promise<number | undefined>;
  /** Takes back one counted attempt (a replayed code is not a guess). */
  forgiveAttempt(id: string): Promise<void>;
  /** Locks code checks until `until` and starts counting again. */
  lock(id: string, until: Date): Promise<void>;
  /** Replaces the recovery codes if the enrollment is still at `revision` (false when another change came first). */
  replaceRecoveryCodes(id: string, revision: number, codes: string[], at: Date): Promise<boolean>;
  delete(id: string): Promise<boolean>;
  deleteByIdentity(identityId: string): Promise<boolean>;
}

export function createMfaRepository(database: Database, box: SecretBox): MfaRepository {
  const { db } = database;
  const secretContext = (identityId: string) => `mfa-secret:${identityId}`;
  const codesContext = (identityId: string) => `mfa-recovery-codes:${identityId}`;
  const sealCodes = (identityId: string, codes: string[]) => box.seal(JSON.stringify(codes), codesContext(identityId));

  function fromRow(row: MfaEnrollmentsTable): MfaEnrollment {
    return {
      id: row.id,
      identityId: row.identity_id,
      isVerified: toBool(row.is_verified),
      secret: box.open(row.secret_sealed, secretContext(row.identity_id)),
      recoveryCodes: JSON.parse(box.open(row.recovery_codes_sealed, codesContext(row.identity_id))) as string[],
      lastUsedStep: row.last_used_step === null ? null : Number(row.last_used_step),
      failedAttempts: Number(row.failed_attempts),
      lockedUntil: toDateOrNull(row.locked_until),
      revision: Number(row.revision),
      createdAt: toDate(row.created_at),
      updatedAt: toDate(row.updated_at),
    };
  }

  return {
    async insert(e) {
      await atomically(db, async (trx) => {
        await trx
          .insertInto('mfa_enrollments')
          .values({
            id: e.id,
            identity_id: e.identityId,
            is_verified: e.isVerified,
            secret_sealed: box.seal(e.secret, secretContext(e.identityId)),
            recovery_codes_sealed: sealCodes(e.identityId, e.recoveryCodes),
            last_used_step: e.lastUsedStep,
            failed_attempts: e.failedAttempts,
            locked_until: toIsoOrNull(e.lockedUntil),
            revision: e.revision,
            created_at: toIso(e.createdAt),
            updated_at: toIso(e.updatedAt),
          })
          .execute();
        // An identity's detail says whether it has MFA; controllers keep details in memory (decision 0035).
        await recordChange({ ...database, db: trx }, 'identity', e.identityId);
      });
    },
    async findByIdentity(identityId) {
      const row = await db.selectFrom('mfa_enrollments').selectAll().where('identity_id', '=', identityId).executeTakeFirst();
      return row && fromRow(row);
    },
    async isVerified(identityId) {
      const row = await db.selectFrom('mfa_enrollments').select('is_verified').where('identity_id', '=', identityId).executeTakeFirst();
      return row !== undefined && toBool(row.is_verified);
    },
    async verifiedAmong(identityIds) {
      if (identityIds.length === 0) return new Set();
      const rows = await db.selectFrom('mfa_enrollments').select('identity_id').where('identity_id', 'in', [...identityIds]).where('is_verified', '=', true).execute();
      return new Set(rows.map((row) => row.identity_id));
    },
    async acceptStep(id, step, at, options = {}) {
      return atomically(db, async (trx) => {
        const row = await trx
          .updateTable('mfa_enrollments')
          .set({ last_used_step: step, failed_attempts: 0, updated_at: toIso(at), ...(options.verify ? { is_verified: true } : {}) })
          .where('id', '=', id)
          .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
          .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', toIso(at))]))
          .returning('identity_id')
          .executeTakeFirst();
        if (row && options.verify) await recordChange({ ...database, db: trx }, 'identity', row.identity_id);
        return row !== undefined;
      });
    },
    async countAttempt(id, at) {
      const row = await db
        .updateTable('mfa_enrollments')
        .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1), updated_at: toIso(at) }))
        .where('id', '=', id)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', toIso(at))]))
        .returning('failed_attempts')
        .executeTakeFirst();
      return row === undefined ? undefined : Number(row.failed_attempts);
    },
    async forgiveAttempt(id) {
      await db
        .updateTable('mfa_enrollments')
        .set((eb) => ({ failed_attempts: eb('failed_attempts', '-', 1) }))
        .where('id', '=', id)
        .where('failed_attempts', '>', 0)
        .execute();
    },
    async lock(id, until) {
      await db.updateTable('mfa_enrollments').set({ failed_attempts: 0, locked_until: toIso(until) }).where('id', '=', id).execute();
    },
    async replaceRecoveryCodes(id, revision, codes, at) {
      const row = await db.selectFrom('mfa_enrollments').select('identity_id').where('id', '=', id).executeTakeFirst();
      if (!row) return false;
      const result = await db
        .updateTable('mfa_enrollments')
        .set({ recovery_codes_sealed: sealCodes(row.identity_id, codes), revision: revision + 1, failed_attempts: 0, updated_at: toIso(at) })
        .where('id', '=', id)
        .where('revision', '=', revision)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async delete(id) {
      return atomically(db, async (trx) => {
        const row = await trx.deleteFrom('mfa_enrollments').where('id', '=', id).returning('identity_id').executeTakeFirst();
        if (row) await recordChange({ ...database, db: trx }, 'identity', row.identity_id);
        return row !== undefined;
      });
    },
    async deleteByIdentity(identityId) {
      return atomically(db, async (trx) => {
        const result = await trx.deleteFrom('mfa_enrollments').where('identity_id', '=', identityId).executeTakeFirst();
        const deleted = Number(result.numDeletedRows) > 0;
        if (deleted) await recordChange({ ...database, db: trx }, 'identity', identityId);
        return deleted;
      });
    },
  };
}
