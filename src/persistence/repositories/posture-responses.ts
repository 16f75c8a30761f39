/**
 * Posture responses in the store (migration 0015): one row per (API session, slot), replaced by the next response
 * to the same slot. Rows of a session go with it through the foreign key of its kind. Also reads the one fact an
 * OIDC session holds about MFA: when its login answered TOTP.
 */
import type { ApiSessionRef, PostureFacts, PostureSlot } from '../../domain/posture-response.js';
import type { Database } from '../database.js';
import { atomically } from '../unit-of-work.js';
import { recordChange } from './authorization-changes.js';
import { parseJson, toDate, toIso } from './row-values.js';

export interface PostureResponseRepository {
  /** Stores every slot (upsert), all or none. */
  put(session: ApiSessionRef, slots: readonly PostureSlot[], typeIds: readonly string[]): Promise<void>;
  /** Every slot of one API session. */
  slotsOf(sessionId: string): Promise<PostureSlot[]>;
  /** When an OIDC session's login answered TOTP (its `auth_time` when its `amr` holds `totp`), else null. */
  oidcLoginMfaAt(sessionId: string): Promise<Date | null>;
  /** The newest live API sessions of an identity (legacy, and OIDC not revoked), at most `limit` of each kind. */
  sessionsOfIdentity(identityId: string, limit: number): Promise<Array<{ kind: 'legacy' | 'oidc'; id: string; createdAt: Date }>>;
}

export function createPostureResponseRepository(database: Database): PostureResponseRepository {
  const { db } = database;
  return {
    async put(session, slots, typeIds) {
      await atomically(db, async (trx) => {
        for (const [index, { slot, facts, receivedAt }] of slots.entries()) {
          const { typeId: _typeId, ...body } = facts;
          const row = {
            session_id: session.id,
            slot,
            legacy_session_id: session.kind === 'legacy' ? session.id : null,
            oidc_session_id: session.kind === 'oidc' ? session.id : null,
            type_id: typeIds[index] ?? facts.typeId,
            body: JSON.stringify({ ...body, typeId: facts.typeId }),
            received_at: toIso(receivedAt),
          };
          await trx
            .insertInto('posture_responses')
            .values(row)
            .onConflict((conflict) => conflict.columns(['session_id', 'slot']).doUpdateSet({ type_id: row.type_id, body: row.body, received_at: row.received_at }))
            .execute();
        }
        // Logged by the API session's id: every controller's copy of the session's posture drops (change feed).
        await recordChange({ ...database, db: trx }, 'posture-response', session.id);
      });
    },
    async slotsOf(sessionId) {
      const rows = await db.selectFrom('posture_responses').select(['slot', 'body', 'received_at']).where('session_id', '=', sessionId).execute();
      return rows.map((row) => ({ slot: row.slot, facts: parseJson<PostureFacts>(row.body), receivedAt: toDate(row.received_at) }));
    },
    async oidcLoginMfaAt(sessionId) {
      const row = await db.selectFrom('oidc_sessions').select(['amr', 'auth_time']).where('id', '=', sessionId).executeTakeFirst();
      return row && parseJson<string[]>(row.amr).includes('totp') ? toDate(row.auth_time) : null;
    },
    async sessionsOfIdentity(identityId, limit) {
      // Both read through the identity_id indexes of migration 0036.
      const [legacy, oidc] = await Promise.all([
        db.selectFrom('api_sessions').select(['id', 'created_at']).where('identity_id', '=', identityId).orderBy('created_at', 'desc').limit(limit).execute(),
        db
          .selectFrom('oidc_sessions')
          .select(['id', 'created_at'])
          .where('identity_id', '=', identityId)
          .where('revoked_at', 'is', null)
          .orderBy('created_at', 'desc')
          .limit(limit)
          .execute(),
      ]);
      return [
        ...legacy.map((row) => ({ kind: 'legacy' as const, id: row.id, createdAt: toDate(row.created_at) })),
        ...oidc.map((row) => ({ kind: 'oidc' as const, id: row.id, createdAt: toDate(row.created_at) })),
      ];
    },
  };
}
