/**
 * What the expiry board (issue 45, `GET /expiries`) reads by index, however many identities there are:
 * - `authenticators.cert_not_after`: the end of a certificate authenticator's certificate, written with the
 *   certificate (enrollment, third-party CA enrollment, extension), filled here for the ones already stored;
 * - indexes on it and on `enrollments.expires_at`, so "what ends before T, soonest first" reads only those rows.
 * Routers, CAs and external JWT signers are few; their certificates are read as they are.
 */
import type { Kysely, Migration } from 'kysely';
import { certificateNotAfter } from '../certificate-not-after.js';

const BATCH = 1_000;

export const expiryColumns: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('authenticators').addColumn('cert_not_after', 'text').execute();
    for (let after = '';;) {
      const rows = await db.selectFrom('authenticators').select(['id', 'cert_pem']).where('cert_pem', 'is not', null).where('id', '>', after).orderBy('id').limit(BATCH).execute();
      for (const row of rows) {
        await db.updateTable('authenticators').set({ cert_not_after: certificateNotAfter(row.cert_pem) }).where('id', '=', row.id).execute();
      }
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1]!.id;
    }
    await db.schema.createIndex('authenticators_cert_not_after').on('authenticators').column('cert_not_after').execute();
    await db.schema.createIndex('enrollments_expires_at').on('enrollments').column('expires_at').execute();
  },
};
