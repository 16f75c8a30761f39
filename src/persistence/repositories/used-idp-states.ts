/**
 * The used `state` values of login-page sign-ins at an external IdP (migration 0037; decision 0084): marking one used
 * is a single insert whose key conflict means "used before", so two controllers racing on one callback let one
 * through. Rows live until the auth request's expiry; the housekeeping sweep removes them after.
 */
import type { Database } from '../database.js';
import { toIso } from './row-values.js';

export interface UsedIdpStateRepository {
  /** Marks the state hashed `stateHash` used until `expiresAt`; false when it was used before. */
  use(stateHash: string, expiresAt: Date): Promise<boolean>;
  /** Deletes at most `limit` rows that expired before `cutoff`; how many went. */
  deleteExpired(cutoff: Date, limit: number): Promise<number>;
}

export function createUsedIdpStateRepository(database: Database): UsedIdpStateRepository {
  const { db } = database;
  return {
    async use(stateHash, expiresAt) {
      const result = await db
        .insertInto('used_idp_states')
        .values({ state_hash: stateHash, expires_at: toIso(expiresAt) })
        .onConflict((c) => c.column('state_hash').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
    },
    async deleteExpired(cutoff, limit) {
      // By keys first: a bounded delete is not portable SQL (SQLite builds without DELETE ... LIMIT).
      const expired = db.selectFrom('used_idp_states').select('state_hash').where('expires_at', '<', toIso(cutoff)).limit(limit);
      const result = await db.deleteFrom('used_idp_states').where('state_hash', 'in', expired).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
