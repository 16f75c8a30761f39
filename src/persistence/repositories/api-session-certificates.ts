/**
 * Ephemeral client certificates of API sessions (migration 0020): one row per certificate, naming its session (and,
 * for a legacy session, the SHA-256 of the session's token, so a request presenting the certificate can be
 * authenticated as that session). A session's certificates are listed, read and deleted only through its id; the
 * store deletes them with the session's row (a legacy session has a token hash, an OIDC one none).
 */
import type { Database } from '../database.js';
import { listRows, type FieldMap, type ListQuery } from '../query/list-query.js';
import type { ApiSessionCertificatesTable } from '../tables.js';
import { toDate, toIso } from './row-values.js';

/** Public field name -> column, for `filter` and `sort` on the list. */
export const SESSION_CERTIFICATE_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  subject: { column: 'subject', type: 'string' },
  fingerprint: { column: 'fingerprint', type: 'string' },
  validFrom: { column: 'valid_from', type: 'datetime' },
  validTo: { column: 'valid_to', type: 'datetime' },
  createdAt: { column: 'created_at', type: 'datetime' },
};

export interface SessionCertificate {
  id: string;
  apiSessionId: string;
  identityId: string;
  sessionTokenHash: string | null;
  subject: string;
  fingerprint: string;
  certPem: string;
  validFrom: Date;
  validTo: Date;
  createdAt: Date;
}

export interface SessionCertificateRepository {
  insert(certificate: SessionCertificate): Promise<void>;
  /** One page of the certificates of session `apiSessionId` (the filter is combined with it). */
  list(apiSessionId: string, query: ListQuery): Promise<{ items: SessionCertificate[]; totalCount: number }>;
  /** The certificate `id` of session `apiSessionId`; undefined for another session's. */
  find(apiSessionId: string, id: string): Promise<SessionCertificate | undefined>;
  findByFingerprint(fingerprint: string): Promise<SessionCertificate | undefined>;
  /** The session token hash another certificate of legacy session `apiSessionId` recorded, if any. */
  tokenHashOfSession(apiSessionId: string): Promise<string | undefined>;
  delete(apiSessionId: string, id: string): Promise<boolean>;
  /** How many certificates of session `apiSessionId` are valid after `now`. */
  countUnexpired(apiSessionId: string, now: Date): Promise<number>;
  /** Deletes up to `limit` certificates (of any session) that expired before `cutoff`; how many went. */
  deleteExpired(cutoff: Date, limit: number): Promise<number>;
}

function fromRow(row: ApiSessionCertificatesTable): SessionCertificate {
  return {
    id: row.id,
    apiSessionId: row.api_session_id,
    identityId: row.identity_id,
    sessionTokenHash: row.session_token_hash,
    subject: row.subject,
    fingerprint: row.fingerprint,
    certPem: row.cert_pem,
    validFrom: toDate(row.valid_from),
    validTo: toDate(row.valid_to),
    createdAt: toDate(row.created_at),
  };
}

export function createSessionCertificateRepository(database: Database): SessionCertificateRepository {
  const { db } = database;
  return {
    async insert(c) {
      await db
        .insertInto('api_session_certificates')
        .values({
          id: c.id,
          api_session_id: c.apiSessionId,
          legacy_session_id: c.sessionTokenHash === null ? null : c.apiSessionId,
          oidc_session_id: c.sessionTokenHash === null ? c.apiSessionId : null,
          identity_id: c.identityId,
          session_token_hash: c.sessionTokenHash,
          subject: c.subject,
          fingerprint: c.fingerprint,
          cert_pem: c.certPem,
          valid_from: toIso(c.validFrom),
          valid_to: toIso(c.validTo),
          created_at: toIso(c.createdAt),
        })
        .execute();
    },
    async list(apiSessionId, query) {
      const scoped: ListQuery = {
        ...query,
        where: { kind: 'and', operands: [{ kind: 'compare', field: 'apiSessionId', operator: '=', value: apiSessionId }, ...(query.where ? [query.where] : [])] },
      };
      const fields = { ...SESSION_CERTIFICATE_FIELDS, apiSessionId: { column: 'api_session_id', type: 'string' as const } };
      const { rows, totalCount } = await listRows(database, 'api_session_certificates', fields, scoped);
      return { items: rows.map(fromRow), totalCount };
    },
    async find(apiSessionId, id) {
      const row = await db.selectFrom('api_session_certificates').selectAll().where('id', '=', id).where('api_session_id', '=', apiSessionId).executeTakeFirst();
      return row && fromRow(row);
    },
    async findByFingerprint(fingerprint) {
      const row = await db.selectFrom('api_session_certificates').selectAll().where('fingerprint', '=', fingerprint).executeTakeFirst();
      return row && fromRow(row);
    },
    async tokenHashOfSession(apiSessionId) {
      const row = await db
        .selectFrom('api_session_certificates')
        .select('session_token_hash')
        .where('legacy_session_id', '=', apiSessionId)
        .where('session_token_hash', 'is not', null)
        .executeTakeFirst();
      return row?.session_token_hash ?? undefined;
    },
    async countUnexpired(apiSessionId, now) {
      const row = await db
        .selectFrom('api_session_certificates')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('api_session_id', '=', apiSessionId)
        .where('valid_to', '>', toIso(now))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async deleteExpired(cutoff, limit) {
      // By ids first: a bounded delete is not portable SQL (SQLite builds without DELETE ... LIMIT).
      const expired = db.selectFrom('api_session_certificates').select('id').where('valid_to', '<', toIso(cutoff)).limit(limit);
      const result = await db.deleteFrom('api_session_certificates').where('id', 'in', expired).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async delete(apiSessionId, id) {
      const result = await db.deleteFrom('api_session_certificates').where('id', '=', id).where('api_session_id', '=', apiSessionId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
