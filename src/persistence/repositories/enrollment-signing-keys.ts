/**
 * The keys that have signed enrollment JWTs (migration 0020), and the JWTs still live: what the enrollment JWKS is
 * computed from. A controller publishes its key when it starts; the key stays here after a restart with another
 * server certificate, so JWTs it signed still verify until they expire.
 */
import type { JWK } from 'jose';
import type { Database } from '../database.js';
import { toIso } from './row-values.js';

export interface EnrollmentSigningKeyRepository {
  /** Records `kid` with its public key, once (a key already recorded is kept as it is). */
  publish(kid: string, publicJwk: JWK, now: Date): Promise<void>;
  /** The public keys of `kids` that are recorded. */
  find(kids: readonly string[]): Promise<JWK[]>;
  /** Every enrollment JWT (identities' and edge routers') that has not expired at `now`. */
  liveJwts(now: Date): Promise<string[]>;
}

export function createEnrollmentSigningKeyRepository(database: Database): EnrollmentSigningKeyRepository {
  const { db } = database;
  return {
    async publish(kid, publicJwk, now) {
      await db
        .insertInto('enrollment_signing_keys')
        .values({ kid, public_jwk: JSON.stringify(publicJwk), created_at: toIso(now) })
        .onConflict((oc) => oc.column('kid').doNothing())
        .execute();
    },
    async find(kids) {
      if (kids.length === 0) return [];
      const rows = await db.selectFrom('enrollment_signing_keys').select('public_jwk').where('kid', 'in', [...kids]).orderBy('created_at').execute();
      return rows.map((row) => JSON.parse(row.public_jwk) as JWK);
    },
    async liveJwts(now) {
      const at = toIso(now);
      const identities = await db.selectFrom('enrollments').select('jwt').where('expires_at', '>', at).execute();
      const routers = await db
        .selectFrom('edge_routers')
        .select('enrollment_jwt')
        .where('enrollment_expires_at', '>', at)
        .where('enrollment_jwt', 'is not', null)
        .execute();
      return [...identities.map((row) => row.jwt), ...routers.flatMap((row) => (row.enrollment_jwt ? [row.enrollment_jwt] : []))];
    },
  };
}
