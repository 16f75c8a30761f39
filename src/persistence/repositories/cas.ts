/**
 * Third-party certificate authorities in the store (migration 0019). The common operations come from the resource
 * kit (resource-table.ts), every write logged as a `ca` change so that every controller's trusted set follows
 * (decision 0037). Also here: the one write of CA auto-enrollment, an identity and its certificate authenticator in
 * one transaction, so that a certificate enrolls one identity however many requests race with it.
 */
import type { CertificateAuthority, ExternalIdClaim } from '../../domain/ca.js';
import type { Identity } from '../../domain/identity.js';
import type { Database } from '../database.js';
import type { FieldMap } from '../query/list-query.js';
import { resourceRepository, type ResourceRepository, type ResourceTable } from '../resource-table.js';
import type { CasTable } from '../tables.js';
import { atomically } from '../unit-of-work.js';
import { recordChange } from './authorization-changes.js';
import { IDENTITY_TABLE } from './identities.js';
import { newAuthenticatorRow } from './enrollments.js';
import { parseJson, toBool, toDate, toIso } from './row-values.js';
import { uniqueViolationError } from '../../errors/unique-violation.js';

/** Public field name -> column, for `filter` and `sort` on the CA list. */
export const CA_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  name: { column: 'name', type: 'string' },
  fingerprint: { column: 'fingerprint', type: 'string' },
  isVerified: { column: 'is_verified', type: 'boolean' },
  isAuthEnabled: { column: 'is_auth_enabled', type: 'boolean' },
  isAutoCaEnrollmentEnabled: { column: 'is_auto_ca_enrollment_enabled', type: 'boolean' },
  isOttCaEnrollmentEnabled: { column: 'is_ott_ca_enrollment_enabled', type: 'boolean' },
  identityNameFormat: { column: 'identity_name_format', type: 'string' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
  tags: { column: 'tags', type: 'tags' },
};

/** The certificate authenticator a CA enrollment creates: the presented leaf, not issued by this controller. */
export interface CaCertAuthenticator {
  id: string;
  identityId: string;
  certFingerprint: string;
  certPem: string;
  /** The CA it was enrolled through (migration 0026): the identity is then one the CA's externalIdClaim may log in. */
  caId: string;
  createdAt: Date;
}

export type CaEnrollOutcome = 'enrolled' | 'cert-in-use' | 'name-taken' | 'external-id-taken';

export interface CaRepository extends ResourceRepository<CertificateAuthority> {
  findByFingerprint(fingerprint: string): Promise<CertificateAuthority | undefined>;
  /** Whether an authenticator holds the certificate of this fingerprint. */
  certInUse(fingerprint: string): Promise<boolean>;
  /** Every verified CA, by name: the set whose certificates may log in or enroll. */
  listVerified(): Promise<CertificateAuthority[]>;
  /** Marks the CA verified; false when it was already verified or is gone (the first of two racing verifications wins). */
  markVerified(id: string, at: Date): Promise<boolean>;
  /**
   * Inserts `identity` and its certificate authenticator in one transaction; changes nothing and says why when the
   * certificate already belongs to an authenticator or the name is taken (unique constraints settle races).
   */
  insertEnrolledIdentity(identity: Identity, authenticator: CaCertAuthenticator): Promise<CaEnrollOutcome>;
}

function fromRow(row: CasTable): CertificateAuthority {
  return {
    id: row.id,
    name: row.name,
    certPem: row.cert_pem,
    fingerprint: row.fingerprint,
    isVerified: toBool(row.is_verified),
    verificationToken: row.verification_token,
    isAuthEnabled: toBool(row.is_auth_enabled),
    isAutoCaEnrollmentEnabled: toBool(row.is_auto_ca_enrollment_enabled),
    isOttCaEnrollmentEnabled: toBool(row.is_ott_ca_enrollment_enabled),
    identityRoles: parseJson<string[]>(row.identity_roles),
    identityNameFormat: row.identity_name_format,
    externalIdClaim: row.external_id_claim === null ? null : parseJson<ExternalIdClaim>(row.external_id_claim),
    tags: parseJson<CertificateAuthority['tags']>(row.tags),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

function toRow(ca: CertificateAuthority): CasTable {
  return {
    id: ca.id,
    name: ca.name,
    cert_pem: ca.certPem,
    fingerprint: ca.fingerprint,
    is_verified: ca.isVerified,
    verification_token: ca.verificationToken,
    is_auth_enabled: ca.isAuthEnabled,
    is_auto_ca_enrollment_enabled: ca.isAutoCaEnrollmentEnabled,
    is_ott_ca_enrollment_enabled: ca.isOttCaEnrollmentEnabled,
    identity_roles: JSON.stringify(ca.identityRoles),
    identity_name_format: ca.identityNameFormat,
    external_id_claim: ca.externalIdClaim === null ? null : JSON.stringify(ca.externalIdClaim),
    tags: JSON.stringify(ca.tags),
    created_at: toIso(ca.createdAt),
    updated_at: toIso(ca.updatedAt),
  };
}

/** How CAs are stored. Verification is not an administrator's edit: `update` leaves it (and the certificate) alone. */
export const CA_TABLE: ResourceTable<'cas', CertificateAuthority> = {
  table: 'cas',
  fields: CA_FIELDS,
  fromRow,
  toRow,
  keptOnUpdate: ['cert_pem', 'fingerprint', 'is_verified', 'verification_token'],
  changeLog: 'ca',
};

export function createCaRepository(database: Database): CaRepository {
  const { db } = database;
  const common = resourceRepository(database, CA_TABLE);
  return {
    ...common,
    async findByFingerprint(fingerprint) {
      const row = await db.selectFrom('cas').selectAll().where('fingerprint', '=', fingerprint).executeTakeFirst();
      return row && fromRow(row);
    },
    async certInUse(fingerprint) {
      const row = await db.selectFrom('authenticators').select('id').where('cert_fingerprint', '=', fingerprint).executeTakeFirst();
      return row !== undefined;
    },
    async listVerified() {
      const rows = await db.selectFrom('cas').selectAll().where('is_verified', '=', true).orderBy('name').execute();
      return rows.map(fromRow);
    },
    async markVerified(id, at) {
      return atomically(db, async (trx) => {
        const result = await trx.updateTable('cas').set({ is_verified: true, updated_at: toIso(at) }).where('id', '=', id).where('is_verified', '=', false).executeTakeFirst();
        const changed = Number(result.numUpdatedRows) > 0;
        if (changed) await recordChange({ ...database, db: trx }, 'ca', id);
        return changed;
      });
    },
    async insertEnrolledIdentity(identity, a) {
      try {
        await atomically(db, async (trx) => {
          const store = { ...database, db: trx };
          const taken = await trx.selectFrom('authenticators').select('id').where('cert_fingerprint', '=', a.certFingerprint).executeTakeFirst();
          if (taken) throw new CertInUse();
          await resourceRepository(store, IDENTITY_TABLE).insert(identity);
          // A third-party CA's certificate: not issued by the network.
          await trx.insertInto('authenticators').values(newAuthenticatorRow({ ...a, method: 'cert', issuedByNetwork: false })).execute();
        });
        return 'enrolled';
      } catch (error) {
        if (error instanceof CertInUse) return 'cert-in-use';
        const field = uniqueViolationError(error)?.cause?.field;
        if (field === undefined) throw error;
        if (field === 'name') return 'name-taken';
        if (field === 'externalId') return 'external-id-taken';
        return 'cert-in-use';
      }
    },
  };
}

/** Thrown inside the transaction to roll it back when the certificate is already an authenticator's. */
class CertInUse extends Error {}
