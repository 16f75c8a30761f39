/**
 * The certificate extension state of certificate authenticators (migration 0020): the certificate an extension
 * issued and that awaits `extend-verify`, and an administrator's request to extend. Every write is conditional on
 * the state the caller read and records the identity as changed (its detail and logins read these rows).
 */
import type { Database } from '../database.js';
import { atomically } from '../unit-of-work.js';
import { recordChange } from './authorization-changes.js';
import { toBool, toDateOrNull, toIso } from './row-values.js';

export interface ExtensionState {
  id: string;
  identityId: string;
  method: string;
  certFingerprint: string | null;
  isIssuedByNetwork: boolean;
  unverifiedFingerprint: string | null;
  isExtendRequested: boolean;
  isKeyRollRequested: boolean;
  extendRequestedAt: Date | null;
}

export interface AuthenticatorExtensionRepository {
  find(id: string): Promise<ExtensionState | undefined>;
  /** Stores the certificate an extension issued, while the authenticator still holds `current`; false otherwise. */
  setUnverified(id: string, current: string, cert: { pem: string; fingerprint: string }, now: Date): Promise<boolean>;
  /** Makes the pending certificate of fingerprint `pending` the authenticator's and clears the request; false when it is no longer pending. */
  verify(id: string, pending: string, now: Date): Promise<boolean>;
  /** Asks the holder to extend (and roll its key when `rollKeys`) at its next login. */
  requestExtend(id: string, rollKeys: boolean, now: Date): Promise<boolean>;
}

export function createAuthenticatorExtensionRepository(database: Database): AuthenticatorExtensionRepository {
  const { db } = database;

  async function changed(id: string, work: (trx: typeof db) => Promise<{ numUpdatedRows: bigint } | undefined>, now: Date): Promise<boolean> {
    return atomically(db, async (trx) => {
      const result = await work(trx);
      if (!result || Number(result.numUpdatedRows) === 0) return false;
      const row = await trx.selectFrom('authenticators').select('identity_id').where('id', '=', id).executeTakeFirst();
      if (row) await recordChange({ ...database, db: trx }, 'identity', row.identity_id, now);
      return true;
    });
  }

  return {
    async find(id) {
      const row = await db
        .selectFrom('authenticators')
        .select(['id', 'identity_id', 'method', 'cert_fingerprint', 'is_issued_by_network', 'unverified_cert_fingerprint', 'is_extend_requested', 'is_key_roll_requested', 'extend_requested_at'])
        .where('id', '=', id)
        .executeTakeFirst();
      return (
        row && {
          id: row.id,
          identityId: row.identity_id,
          method: row.method,
          certFingerprint: row.cert_fingerprint,
          isIssuedByNetwork: toBool(row.is_issued_by_network),
          unverifiedFingerprint: row.unverified_cert_fingerprint,
          isExtendRequested: toBool(row.is_extend_requested),
          isKeyRollRequested: toBool(row.is_key_roll_requested),
          extendRequestedAt: toDateOrNull(row.extend_requested_at),
        }
      );
    },
    setUnverified: (id, current, cert, now) =>
      changed(
        id,
        (trx) =>
          trx
            .updateTable('authenticators')
            .set({ unverified_cert_pem: cert.pem, unverified_cert_fingerprint: cert.fingerprint, updated_at: toIso(now) })
            .where('id', '=', id)
            .where('cert_fingerprint', '=', current)
            .executeTakeFirst(),
        now,
      ),
    async verify(id, pending, now) {
      return changed(
        id,
        async (trx) => {
          const row = await trx.selectFrom('authenticators').select('unverified_cert_pem').where('id', '=', id).where('unverified_cert_fingerprint', '=', pending).executeTakeFirst();
          if (!row?.unverified_cert_pem) return undefined;
          return trx
            .updateTable('authenticators')
            .set({
              cert_pem: row.unverified_cert_pem,
              cert_fingerprint: pending,
              unverified_cert_pem: null,
              unverified_cert_fingerprint: null,
              is_extend_requested: false,
              is_key_roll_requested: false,
              extend_requested_at: null,
              updated_at: toIso(now),
            })
            .where('id', '=', id)
            .where('unverified_cert_fingerprint', '=', pending)
            .executeTakeFirst();
        },
        now,
      );
    },
    requestExtend: (id, rollKeys, now) =>
      changed(
        id,
        (trx) =>
          trx
            .updateTable('authenticators')
            .set({ is_extend_requested: true, is_key_roll_requested: rollKeys, extend_requested_at: toIso(now), updated_at: toIso(now) })
            .where('id', '=', id)
            .executeTakeFirst(),
        now,
      ),
  };
}
