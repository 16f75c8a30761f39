/**
 * The certificate extension state of certificate authenticators (migrations 0020 and 0021): the certificate an
 * extension issued and that awaits `extend-verify`, an administrator's request to extend, and whether the last
 * verified extension changed the key. Every write is conditional on
 * the state the caller read and records the identity as changed (its detail and logins read these rows).
 */
import { certificateNotAfter } from '../certificate-not-after.js';
import type { Database } from '../database.js';
import { atomically } from '../unit-of-work.js';
import { recordChange } from './authorization-changes.js';
import { toBool, toDateOrNull, toIso } from './row-values.js';

export interface ExtensionState {
  id: string;
  identityId: string;
  method: string;
  certFingerprint: string | null;
  certPem: string | null;
  isIssuedByNetwork: boolean;
  unverifiedFingerprint: string | null;
  unverifiedPem: string | null;
  isExtendRequested: boolean;
  isKeyRollRequested: boolean;
  extendRequestedAt: Date | null;
}

export interface AuthenticatorExtensionRepository {
  find(id: string): Promise<ExtensionState | undefined>;
  /** The states of the authenticators `ids` that exist, in one query (a page of API sessions). */
  findMany(ids: readonly string[]): Promise<ExtensionState[]>;
  /** Stores the certificate an extension issued, while the authenticator still holds `current`; false otherwise. */
  setUnverified(id: string, current: string, cert: { pem: string; fingerprint: string }, now: Date): Promise<boolean>;
  /**
   * Makes the pending certificate of fingerprint `pending` the authenticator's, records whether that changed the key
   * (`rolledKeys`) and clears the request; false when it is no longer pending.
   */
  verify(id: string, pending: string, rolledKeys: boolean, now: Date): Promise<boolean>;
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

  const states = () =>
    db
      .selectFrom('authenticators')
      .select([
        'id',
        'identity_id',
        'method',
        'cert_fingerprint',
        'cert_pem',
        'is_issued_by_network',
        'unverified_cert_fingerprint',
        'unverified_cert_pem',
        'is_extend_requested',
        'is_key_roll_requested',
        'extend_requested_at',
      ]);
  type Row = Awaited<ReturnType<ReturnType<typeof states>['executeTakeFirstOrThrow']>>;
  const fromRow = (row: Row): ExtensionState => ({
    id: row.id,
    identityId: row.identity_id,
    method: row.method,
    certFingerprint: row.cert_fingerprint,
    certPem: row.cert_pem,
    isIssuedByNetwork: toBool(row.is_issued_by_network),
    unverifiedFingerprint: row.unverified_cert_fingerprint,
    unverifiedPem: row.unverified_cert_pem,
    isExtendRequested: toBool(row.is_extend_requested),
    isKeyRollRequested: toBool(row.is_key_roll_requested),
    extendRequestedAt: toDateOrNull(row.extend_requested_at),
  });

  return {
    async find(id) {
      const row = await states().where('id', '=', id).executeTakeFirst();
      return row && fromRow(row);
    },
    async findMany(ids) {
      const unique = [...new Set(ids)];
      // `in ()` is not SQL; no ids, no authenticators.
      if (unique.length === 0) return [];
      return (await states().where('id', 'in', unique).execute()).map(fromRow);
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
    async verify(id, pending, rolledKeys, now) {
      return changed(
        id,
        async (trx) => {
          const row = await trx.selectFrom('authenticators').select('unverified_cert_pem').where('id', '=', id).where('unverified_cert_fingerprint', '=', pending).executeTakeFirst();
          if (!row?.unverified_cert_pem) return undefined;
          return trx
            .updateTable('authenticators')
            .set({
              cert_pem: row.unverified_cert_pem,
              cert_not_after: certificateNotAfter(row.unverified_cert_pem),
              cert_fingerprint: pending,
              unverified_cert_pem: null,
              unverified_cert_fingerprint: null,
              is_extend_requested: false,
              is_key_roll_requested: false,
              extend_requested_at: null,
              last_extend_rolled_keys: rolledKeys,
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
