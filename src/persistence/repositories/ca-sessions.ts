/**
 * The sessions a third-party CA let in (migration 0026): their login chain reached it. Withdrawing the CA's trust
 * (deleting it, or turning its logins off) ends them in the caller's transaction, each as it ends one by one
 * elsewhere: a legacy session is deleted as at logout (its ephemeral certificates go with it, by foreign key), an
 * OIDC session revoked as at `/oidc/end_session` (its refresh family with it) and its ephemeral certificates deleted.
 * Every change is logged, so every controller drops what it keeps of them within the change feed's bound.
 */
import type { Database } from '../database.js';
import { atomically } from '../unit-of-work.js';
import { deleteApiSessionsWhere } from './api-sessions.js';
import { createOidcRepository } from './oidc.js';

/** How many sessions of each kind ended. */
export interface EndedSessions {
  legacy: number;
  oidc: number;
}

/** Ends every live session whose login chain reached the CA `caId`, at `at`. */
export async function endSessionsReachingCa(database: Database, caId: string, at: Date): Promise<EndedSessions> {
  return atomically(database.db, async (trx) => {
    const store = { ...database, db: trx };
    const legacy = await deleteApiSessionsWhere(store, (eb) => eb('ca_id', '=', caId));
    const oidc = await trx.selectFrom('oidc_sessions').select('id').where('ca_id', '=', caId).where('revoked_at', 'is', null).execute();
    const sessions = createOidcRepository(store);
    for (const { id } of oidc) await sessions.revokeSession(id, at);
    if (oidc.length > 0) {
      await trx.deleteFrom('api_session_certificates').where('oidc_session_id', 'in', oidc.map((row) => row.id)).execute();
    }
    return { legacy: legacy.length, oidc: oidc.length };
  });
}
