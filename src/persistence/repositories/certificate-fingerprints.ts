/**
 * The certificates an API session may present, by fingerprint (issue 42): its identity's certificate authenticators
 * and the session's own ephemeral certificates still within their validity. Access tokens list them (`z_cfs`) and a
 * router's ApiSessionCheck asks whether a client certificate is one of them. Two indexed reads, no joins.
 */
import type { Database } from '../database.js';
import { toIso } from './row-values.js';

export interface CertificateFingerprintRepository {
  /** Lowercase hex SHA-1 fingerprints, the authenticators' first (oldest first), then the session's certificates. */
  ofSession(identityId: string, apiSessionId: string, now: Date): Promise<string[]>;
}

export function createCertificateFingerprintRepository(database: Database): CertificateFingerprintRepository {
  const { db } = database;
  return {
    async ofSession(identityId, apiSessionId, now) {
      const [authenticators, ephemeral] = await Promise.all([
        db
          .selectFrom('authenticators')
          .select('cert_fingerprint')
          .where('identity_id', '=', identityId)
          .where('method', '=', 'cert')
          .where('cert_fingerprint', 'is not', null)
          .orderBy('created_at')
          .execute(),
        db
          .selectFrom('api_session_certificates')
          .select('fingerprint')
          .where('api_session_id', '=', apiSessionId)
          .where('valid_to', '>', toIso(now))
          .orderBy('created_at')
          .execute(),
      ]);
      const all = [...authenticators.map((row) => row.cert_fingerprint as string), ...ephemeral.map((row) => row.fingerprint)];
      return [...new Set(all.map((fingerprint) => fingerprint.toLowerCase()))];
    },
  };
}
