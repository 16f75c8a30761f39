/**
 * The enrolled certificate of an edge router (the `fingerprint`, `cert_pem` and enrollment columns of
 * `edge_routers`), as router enrollment and certificate extension write them. Each write is conditional on what
 * the caller read (the token hash, the presented fingerprint), so of two requests racing with one token or one
 * certificate exactly one changes the row; and each records the router as changed (decision 0035).
 */
import { recordUsedToken, usedTokenAt } from './used-enrollment-tokens.js';
import type { Database } from '../database.js';
import { atomically } from '../unit-of-work.js';
import { recordChange } from './authorization-changes.js';
import { toBool, toDateOrNull, toIso } from './row-values.js';

/** What router enrollment reads about a router. */
export interface RouterCertificateHolder {
  id: string;
  name: string;
  disabled: boolean;
  fingerprint: string | null;
  enrollmentExpiresAt: Date | null;
}

export interface NewRouterCertificate {
  /** Lowercase hex SHA-1 of the client certificate's DER. */
  fingerprint: string;
  certPem: string;
}

export interface RouterCertificateRepository {
  /** The router whose pending enrollment has the token of this SHA-256. */
  findByEnrollmentTokenHash(tokenHash: string): Promise<RouterCertificateHolder | undefined>;
  /** When the enrollment token hashed `tokenHash` enrolled a router, or undefined when it never did. */
  tokenUsedAt(tokenHash: string): Promise<Date | undefined>;
  /** The router whose current client certificate has this fingerprint. */
  findByFingerprint(fingerprint: string): Promise<RouterCertificateHolder | undefined>;
  /** The router with this id, as its control channel's standing is checked. */
  findById(id: string): Promise<RouterCertificateHolder | undefined>;
  /** Consumes the enrollment of `tokenHash` and stores the certificate; false when the token is no longer pending. */
  completeEnrollment(id: string, tokenHash: string, cert: NewRouterCertificate, now: Date): Promise<boolean>;
  /** Replaces the certificate of fingerprint `current`; false when the router no longer holds it. */
  replaceCertificate(id: string, current: string, cert: NewRouterCertificate, now: Date): Promise<boolean>;
}

const COLUMNS = ['id', 'name', 'disabled', 'fingerprint', 'enrollment_expires_at'] as const;

function holder(row: { id: string; name: string; disabled: boolean | number; fingerprint: string | null; enrollment_expires_at: string | null }): RouterCertificateHolder {
  return { id: row.id, name: row.name, disabled: toBool(row.disabled), fingerprint: row.fingerprint, enrollmentExpiresAt: toDateOrNull(row.enrollment_expires_at) };
}

export function createRouterCertificateRepository(database: Database): RouterCertificateRepository {
  const { db } = database;

  async function conditionalWrite(id: string, where: { column: 'enrollment_token_hash' | 'fingerprint'; value: string }, cert: NewRouterCertificate, now: Date) {
    return atomically(db, async (trx) => {
      const result = await trx
        .updateTable('edge_routers')
        .set({
          fingerprint: cert.fingerprint,
          cert_pem: cert.certPem,
          is_verified: true,
          enrollment_token_hash: null,
          enrollment_jwt: null,
          enrollment_expires_at: null,
          updated_at: toIso(now),
        })
        .where('id', '=', id)
        .where(where.column, '=', where.value)
        .executeTakeFirst();
      const changed = Number(result.numUpdatedRows) > 0;
      if (changed) await recordChange({ ...database, db: trx }, 'edge-router', id, now);
      if (changed && where.column === 'enrollment_token_hash') await recordUsedToken(trx, where.value, now);
      return changed;
    });
  }

  return {
    tokenUsedAt: (tokenHash) => usedTokenAt(db, tokenHash),
    async findByEnrollmentTokenHash(tokenHash) {
      const row = await db.selectFrom('edge_routers').select(COLUMNS).where('enrollment_token_hash', '=', tokenHash).executeTakeFirst();
      return row && holder(row);
    },
    async findByFingerprint(fingerprint) {
      const row = await db.selectFrom('edge_routers').select(COLUMNS).where('fingerprint', '=', fingerprint).executeTakeFirst();
      return row && holder(row);
    },
    async findById(id) {
      const row = await db.selectFrom('edge_routers').select(COLUMNS).where('id', '=', id).executeTakeFirst();
      return row && holder(row);
    },
    completeEnrollment: (id, tokenHash, cert, now) => conditionalWrite(id, { column: 'enrollment_token_hash', value: tokenHash }, cert, now),
    replaceCertificate: (id, current, cert, now) => conditionalWrite(id, { column: 'fingerprint', value: current }, cert, now),
  };
}
