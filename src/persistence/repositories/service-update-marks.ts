/**
 * Each identity's service list fingerprint and when it last changed (migration 0017; decision 0032): read when a
 * controller has no current answer of its own, written when a controller sees the fingerprint move.
 */
import type { Database } from '../database.js';

export interface ServiceUpdateMark {
  fingerprint: string;
  changedAt: Date;
}

export interface ServiceUpdateMarkRepository {
  find(identityId: string): Promise<ServiceUpdateMark | undefined>;
  /** Records `mark` for the identity, replacing the one there. */
  save(identityId: string, mark: ServiceUpdateMark): Promise<void>;
}

export function createServiceUpdateMarkRepository(database: Database): ServiceUpdateMarkRepository {
  const { db } = database;
  return {
    async find(identityId) {
      const row = await db.selectFrom('service_update_marks').select(['fingerprint', 'changed_at']).where('identity_id', '=', identityId).executeTakeFirst();
      return row && { fingerprint: row.fingerprint, changedAt: new Date(row.changed_at) };
    },
    async save(identityId, mark) {
      const values = { fingerprint: mark.fingerprint, changed_at: mark.changedAt.toISOString() };
      await db
        .insertInto('service_update_marks')
        .values({ identity_id: identityId, ...values })
        .onConflict((conflict) => conflict.column('identity_id').doUpdateSet(values))
        .execute();
    },
  };
}
