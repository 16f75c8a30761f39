/**
 * What ends before a moment, soonest first (the expiry board, issue 45): pending enrollments and identities'
 * certificates read by their indexes (migration 0035), at most `want` of each, with exact counts; the few routers,
 * CAs, external JWT signers and OIDC signing keys read whole and their certificates parsed.
 */
import type { Database } from '../database.js';
import { certificateNotAfter } from '../certificate-not-after.js';

export type ExpiryKind = 'enrollment' | 'router-enrollment' | 'identity-certificate' | 'router-certificate' | 'ca-certificate' | 'oidc-signing-key' | 'external-jwt-signer-certificate';

export interface ExpiringThing {
  kind: ExpiryKind;
  /** The expiring thing's own id (the enrollment's, the authenticator's, the key's kid…). */
  id: string;
  name: string;
  expiresAt: Date;
  /** The entity to open: a Management API collection and one of its entities. */
  entity: { type: string; id: string; name: string };
}

export interface ExpiryRepository {
  /** Everything ending before `until`: the soonest `want` of the large sources (all of the small ones), and the total. */
  endingBefore(until: Date, want: number): Promise<{ items: ExpiringThing[]; total: number }>;
}

export function createExpiryRepository(database: Database): ExpiryRepository {
  const { db } = database;
  return {
    async endingBefore(until, want) {
      const before = until.toISOString();
      const [enrollments, enrollmentCount, certificates, certificateCount, routers, cas, signers, keys] = await Promise.all([
        db
          .selectFrom('enrollments')
          .innerJoin('identities', 'identities.id', 'enrollments.identity_id')
          .select(['enrollments.id', 'enrollments.method', 'enrollments.expires_at', 'identities.id as identity_id', 'identities.name as identity_name'])
          .where('enrollments.expires_at', '<', before)
          .orderBy('enrollments.expires_at')
          .limit(want)
          .execute(),
        db.selectFrom('enrollments').select((eb) => eb.fn.countAll<string | number>().as('n')).where('expires_at', '<', before).executeTakeFirstOrThrow(),
        db
          .selectFrom('authenticators')
          .innerJoin('identities', 'identities.id', 'authenticators.identity_id')
          .select(['authenticators.id', 'authenticators.cert_not_after', 'identities.id as identity_id', 'identities.name as identity_name'])
          .where('authenticators.cert_not_after', '<', before)
          .orderBy('authenticators.cert_not_after')
          .limit(want)
          .execute(),
        db.selectFrom('authenticators').select((eb) => eb.fn.countAll<string | number>().as('n')).where('cert_not_after', '<', before).executeTakeFirstOrThrow(),
        db.selectFrom('edge_routers').select(['id', 'name', 'cert_pem', 'enrollment_expires_at']).execute(),
        db.selectFrom('cas').select(['id', 'name', 'cert_pem']).execute(),
        db.selectFrom('external_jwt_signers').select(['id', 'name', 'cert_pem']).where('cert_pem', 'is not', null).execute(),
        db.selectFrom('oidc_signing_keys').select(['kid', 'publish_until']).where('publish_until', 'is not', null).where('publish_until', '<', before).execute(),
      ]);
      const items: ExpiringThing[] = [];
      for (const row of enrollments) {
        const entity = { type: 'identities', id: row.identity_id, name: row.identity_name };
        items.push({ kind: 'enrollment', id: row.id, name: `${row.method} enrollment of ${row.identity_name}`, expiresAt: new Date(row.expires_at), entity });
      }
      for (const row of certificates) {
        const entity = { type: 'identities', id: row.identity_id, name: row.identity_name };
        items.push({ kind: 'identity-certificate', id: row.id, name: `certificate of ${row.identity_name}`, expiresAt: new Date(row.cert_not_after!), entity });
      }
      const small = (kind: ExpiryKind, type: string, row: { id: string; name: string }, end: string | null, name: string) => {
        if (end !== null && end < before) items.push({ kind, id: row.id, name, expiresAt: new Date(end), entity: { type, id: row.id, name: row.name } });
      };
      for (const row of routers) {
        small('router-enrollment', 'edge-routers', row, row.enrollment_expires_at, `enrollment of router ${row.name}`);
        small('router-certificate', 'edge-routers', row, certificateNotAfter(row.cert_pem), `certificate of router ${row.name}`);
      }
      for (const row of cas) small('ca-certificate', 'cas', row, certificateNotAfter(row.cert_pem), `CA certificate ${row.name}`);
      for (const row of signers) small('external-jwt-signer-certificate', 'external-jwt-signers', row, certificateNotAfter(row.cert_pem), `certificate of signer ${row.name}`);
      for (const row of keys) {
        items.push({ kind: 'oidc-signing-key', id: row.kid, name: `OIDC signing key ${row.kid} (stops being published)`, expiresAt: new Date(row.publish_until!), entity: { type: 'oidc-signing-keys', id: row.kid, name: row.kid } });
      }
      const smallCount = items.length - enrollments.length - certificates.length;
      items.sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime() || a.id.localeCompare(b.id));
      return { items, total: Number(enrollmentCount.n) + Number(certificateCount.n) + smallCount };
    },
  };
}
