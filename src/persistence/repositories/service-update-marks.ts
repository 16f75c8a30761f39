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
  /**
   * Records `mark` for the identity unless the stored mark already has its fingerprint (another controller saw the
   * same change first); returns the mark stored now, so every controller answers that one's time.
   */
  save(identityId: string, mark: ServiceUpdateMark): Promise<ServiceUpdateMark>;
}

export function createServiceUpdateMarkRepository(database: Database): ServiceUpdateMarkRepository {
  const { db } = database;
  const find = async (identityId: string): Promise<ServiceUpdateMark | undefined> => {
    const row = await db.selectFrom('service_update_marks').select(['fingerprint', 'changed_at']).where('identity_id', '=', identityId).executeTakeFirst();
    return row && { fingerprint: row.fingerprint, changedAt: new Date(row.changed_at) };
  };
  return {
    find,
    async save(identityId, mark) {
      const values = { fingerprint: mark.fingerprint, changed_at: mark.changedAt.toISOString() };
      const written = await db
        .insertInto('service_update_marks')
        .values({ identity_id: identityId, ...values })
        .onConflict((conflict) => conflict.column('identity_id').doUpdateSet(values).where('service_update_marks.fingerprint', '<>', mark.fingerprint))
        .returning('identity_id')
        .executeTakeFirst();
      if (written) return mark;
      // The same fingerprint was there already: that mark's time stands.
      return (await find(identityId)) ?? mark;
    },
  };
}
