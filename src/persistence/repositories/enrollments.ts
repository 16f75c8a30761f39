/**
 * Enrollments in the store, and the one write that completes an enrollment: the pending row is deleted and the
 * credential it was for is inserted in the same transaction, so a token can never yield two authenticators.
 * (The authenticator row is written here rather than through the authenticators repository because both
 * statements must share one transaction; nothing else about authenticators lives in this file.)
 * A updb enrollment holds its username's claim (usernames.ts) from creation, and completing it hands the claim to
 * the new authenticator in the same transaction, so no other request can take the username in between.
 */
import { certificateNotAfter } from '../certificate-not-after.js';
import { atomically } from '../unit-of-work.js';
import type { Enrollment, EnrollmentMethod } from '../../domain/enrollment.js';
import { usernameKey } from '../../policy/names.js';
import type { Database } from '../database.js';
import { listRows, type FieldMap, type ListQuery } from '../query/list-query.js';
import type { EnrollmentsTable } from '../tables.js';
import { recordChange } from './authorization-changes.js';
import { toDate, toIso } from './row-values.js';
import { claimUsername, isUsernameConflict, usernameHeld } from './usernames.js';
import { recordUsedToken, usedTokenAt } from './used-enrollment-tokens.js';
import { hashToken } from '../../crypto/secrets.js';

/** Public field name -> column, for `filter` and `sort` on the enrollments list. */
export const ENROLLMENT_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  identityId: { column: 'identity_id', type: 'string' },
  method: { column: 'method', type: 'string' },
  expiresAt: { column: 'expires_at', type: 'datetime' },
  createdAt: { column: 'created_at', type: 'datetime' },
};

/** The credential an enrollment turns into (a row of `authenticators`). */
export type NewAuthenticator =
  | { id: string; identityId: string; method: 'cert'; certFingerprint: string; certPem: string; createdAt: Date; /** False for a third-party CA's certificate (ottca); default true. */ issuedByNetwork?: boolean; /** The third-party CA it was enrolled through (migration 0026). */ caId?: string }
  | { id: string; identityId: string; method: 'updb'; username: string; passwordHash: string; createdAt: Date };

/** The `authenticators` row of a new credential (the columns of the other method null). */
export function newAuthenticatorRow(a: NewAuthenticator) {
  const at = toIso(a.createdAt);
  return {
    id: a.id,
    identity_id: a.identityId,
    method: a.method,
    username: a.method === 'updb' ? a.username : null,
    username_key: a.method === 'updb' ? usernameKey(a.username) : null,
    password_hash: a.method === 'updb' ? a.passwordHash : null,
    cert_fingerprint: a.method === 'cert' ? a.certFingerprint : null,
    cert_pem: a.method === 'cert' ? a.certPem : null,
    cert_not_after: a.method === 'cert' ? certificateNotAfter(a.certPem) : null,
    is_issued_by_network: a.method === 'cert' && a.issuedByNetwork !== false,
    ca_id: a.method === 'cert' ? (a.caId ?? null) : null,
    created_at: at,
    updated_at: at,
  };
}

export type ConsumeOutcome = 'consumed' | 'gone' | 'conflict';

/** `exists`: the identity has a pending enrollment of that method; `username-taken`: the username's key is held. */
export type InsertOutcome = 'inserted' | 'exists' | 'username-taken';

export interface EnrollmentRepository {
  /**
   * Inserts a pending enrollment, and for updb the claim of its username, in one transaction; changes nothing when
   * the identity already has one of that method or the username is held (unique constraints, so races lose cleanly).
   */
  insert(enrollment: Enrollment): Promise<InsertOutcome>;
  findById(id: string): Promise<Enrollment | undefined>;
  findByToken(token: string): Promise<Enrollment | undefined>;
  /** When `token` enrolled something, or undefined when it never did (used-enrollment-tokens.ts). */
  tokenUsedAt(token: string): Promise<Date | undefined>;
  listForIdentity(identityId: string): Promise<Enrollment[]>;
  /** The enrollments of each of `identityIds` (one query for a page of identities). */
  listForIdentities(identityIds: readonly string[]): Promise<Enrollment[]>;
  list(query: ListQuery): Promise<{ items: Enrollment[]; totalCount: number }>;
  /** Replaces token, JWT and expiry; false when the enrollment no longer exists. */
  updateToken(id: string, change: { token: string; jwt: string; expiresAt: Date; updatedAt: Date }): Promise<boolean>;
  /** false when it did not exist. */
  delete(id: string): Promise<boolean>;
  /** Whether a `updb` authenticator or a pending `updb` enrollment holds the key of `username` (usernameKey). */
  usernameInUse(username: string): Promise<boolean>;
  /** Whether the identity already has an authenticator of this method (`cert` for ott, `updb` for updb). */
  hasAuthenticator(identityId: string, method: 'cert' | 'updb'): Promise<boolean>;
  /**
   * Deletes the enrollment (only while it still holds `token`) and inserts `authenticator`, in one transaction.
   * Changes nothing and answers `gone` when another request consumed, refreshed or deleted it first, and
   * `conflict` when the authenticator's username or fingerprint is already taken. A updb enrollment's claim passes
   * to the authenticator (the delete releases it, the insert takes it again).
   */
  consume(enrollment: Pick<Enrollment, 'id' | 'token'>, authenticator: NewAuthenticator): Promise<ConsumeOutcome>;
}

function fromRow(row: EnrollmentsTable): Enrollment {
  return {
    id: row.id,
    identityId: row.identity_id,
    method: row.method as EnrollmentMethod,
    token: row.token,
    username: row.username,
    caId: row.ca_id,
    jwt: row.jwt,
    expiresAt: toDate(row.expires_at),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

/** A unique-constraint violation on either dialect (SQLite extended code, PostgreSQL SQLSTATE 23505). */
function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function createEnrollmentRepository(database: Database): EnrollmentRepository {
  const { db } = database;

  function consumeIn(enrollment: Pick<Enrollment, 'id' | 'token'>, a: NewAuthenticator): Promise<ConsumeOutcome> {
    return atomically(db, async (trx) => {
      // The conditional delete is the lock: on PostgreSQL a second transaction deleting the same row waits for the
      // first to commit and then finds nothing; on SQLite transactions run one at a time. Exactly one caller wins.
      const deleted = await trx.deleteFrom('enrollments').where('id', '=', enrollment.id).where('token', '=', enrollment.token).executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return 'gone';
      const row = newAuthenticatorRow(a);
      await trx.insertInto('authenticators').values(row).execute();
      if (a.method === 'updb') await claimUsername(trx, a.username, { authenticatorId: a.id }, row.created_at);
      await recordUsedToken(trx, hashToken(enrollment.token), toDate(row.created_at));
      // The identity's detail lists its enrollments and authenticators (decision 0035).
      await recordChange({ ...database, db: trx }, 'identity', a.identityId);
      return 'consumed';
    });
  }

  return {
    async insert(e) {
      try {
        await atomically(db, async (trx) => {
          await trx
            .insertInto('enrollments')
            .values({
              id: e.id,
              identity_id: e.identityId,
              method: e.method,
              token: e.token,
              username: e.username,
              ca_id: e.caId ?? null,
              jwt: e.jwt,
              expires_at: toIso(e.expiresAt),
              created_at: toIso(e.createdAt),
              updated_at: toIso(e.updatedAt),
            })
            .execute();
          if (e.method === 'updb' && e.username !== null) await claimUsername(trx, e.username, { enrollmentId: e.id }, toIso(e.createdAt));
          await recordChange({ ...database, db: trx }, 'identity', e.identityId);
        });
        return 'inserted';
      } catch (error) {
        if (isUsernameConflict(error)) return 'username-taken';
        if (isUniqueViolation(error)) return 'exists';
        throw error;
      }
    },
    async findById(id) {
      const row = await db.selectFrom('enrollments').selectAll().where('id', '=', id).executeTakeFirst();
      return row && fromRow(row);
    },
    tokenUsedAt: (token) => usedTokenAt(db, hashToken(token)),
    async findByToken(token) {
      const row = await db.selectFrom('enrollments').selectAll().where('token', '=', token).executeTakeFirst();
      return row && fromRow(row);
    },
    async listForIdentity(identityId) {
      const rows = await db.selectFrom('enrollments').selectAll().where('identity_id', '=', identityId).orderBy('method').execute();
      return rows.map(fromRow);
    },
    async listForIdentities(identityIds) {
      if (identityIds.length === 0) return [];
      const rows = await db.selectFrom('enrollments').selectAll().where('identity_id', 'in', [...identityIds]).orderBy('method').execute();
      return rows.map(fromRow);
    },
    async list(query) {
      const { rows, totalCount } = await listRows(database, 'enrollments', ENROLLMENT_FIELDS, query);
      return { items: rows.map(fromRow), totalCount };
    },
    async updateToken(id, change) {
      return atomically(db, async (trx) => {
        const row = await trx
          .updateTable('enrollments')
          .set({ token: change.token, jwt: change.jwt, expires_at: toIso(change.expiresAt), updated_at: toIso(change.updatedAt) })
          .where('id', '=', id)
          .returning('identity_id')
          .executeTakeFirst();
        if (row) await recordChange({ ...database, db: trx }, 'identity', row.identity_id);
        return row !== undefined;
      });
    },
    async delete(id) {
      return atomically(db, async (trx) => {
        const row = await trx.deleteFrom('enrollments').where('id', '=', id).returning('identity_id').executeTakeFirst();
        if (row) await recordChange({ ...database, db: trx }, 'identity', row.identity_id);
        return row !== undefined;
      });
    },
    usernameInUse: (username) => usernameHeld(db, username),
    async hasAuthenticator(identityId, method) {
      const row = await db.selectFrom('authenticators').select('id').where('identity_id', '=', identityId).where('method', '=', method).executeTakeFirst();
      return row !== undefined;
    },
    async consume(enrollment, a) {
      try {
        return await consumeIn(enrollment, a);
      } catch (error) {
        if (isUniqueViolation(error)) return 'conflict';
        throw error;
      }
    },
  };
}
