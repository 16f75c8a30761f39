/**
 * The state behind password lockout (decision 0015): per password authenticator and scope, the attempts counted
 * since the last success and when a lockout ends. Each attempt is counted before its password is checked, in one
 * statement, so concurrent guesses share one budget on both stores.
 */
import { sql } from 'kysely';
import type { Database } from '../database.js';
import { toDateOrNull, toIso } from './row-values.js';

export interface LockoutKey {
  authenticatorId: string;
  /** `*` for every client, or one client address. */
  scope: string;
}

export interface CountedAttempt {
  /** Attempts counted so far, this one included (1 after a lockout ran out). */
  attempts: number;
  /** When the current lockout ends; null when none is in force. */
  lockedUntil: Date | null;
}

export interface PasswordLockoutRepository {
  /** Counts one attempt; a lockout that ended by `at` is cleared and counting starts again. */
  countAttempt(key: LockoutKey, identityId: string, at: Date): Promise<CountedAttempt>;
  /** Starts a lockout until `until` unless one is already in force; false when one was. */
  lock(key: LockoutKey, until: Date, at: Date): Promise<boolean>;
  /** Forgets the attempts of a scope (a success). */
  clear(key: LockoutKey): Promise<void>;
  /** Forgets every attempt and lockout of an identity (an administrator's `enable`, a password change); how many. */
  clearIdentity(identityId: string): Promise<number>;
  /** Lockouts in force at `at` for these identities, by identity id (the latest end of each). */
  lockedAmong(identityIds: readonly string[], at: Date): Promise<Map<string, Date>>;
}

export function createPasswordLockoutRepository({ db }: Database): PasswordLockoutRepository {
  return {
    async countAttempt(key, identityId, at) {
      const now = toIso(at);
      // ISO timestamps of one format compare as text on both stores.
      const ended = sql<boolean>`password_lockouts.locked_until is not null and password_lockouts.locked_until <= ${now}`;
      const row = await db
        .insertInto('password_lockouts')
        .values({ authenticator_id: key.authenticatorId, scope: key.scope, identity_id: identityId, attempts: 1, locked_until: null, updated_at: now })
        .onConflict((oc) =>
          oc.columns(['authenticator_id', 'scope']).doUpdateSet({
            attempts: sql<number>`case when ${ended} then 1 else password_lockouts.attempts + 1 end`,
            locked_until: sql<string | null>`case when ${ended} then null else password_lockouts.locked_until end`,
            updated_at: now,
          }),
        )
        .returning(['attempts', 'locked_until'])
        .executeTakeFirstOrThrow();
      return { attempts: Number(row.attempts), lockedUntil: toDateOrNull(row.locked_until) };
    },
    async lock(key, until, at) {
      const result = await db
        .updateTable('password_lockouts')
        .set({ locked_until: toIso(until), updated_at: toIso(at) })
        .where('authenticator_id', '=', key.authenticatorId)
        .where('scope', '=', key.scope)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', toIso(at))]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async clear(key) {
      await db.deleteFrom('password_lockouts').where('authenticator_id', '=', key.authenticatorId).where('scope', '=', key.scope).execute();
    },
    async clearIdentity(identityId) {
      const result = await db.deleteFrom('password_lockouts').where('identity_id', '=', identityId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async lockedAmong(identityIds, at) {
      const locked = new Map<string, Date>();
      if (identityIds.length === 0) return locked;
      const rows = await db
        .selectFrom('password_lockouts')
        .select(['identity_id', 'locked_until'])
        .where('identity_id', 'in', [...identityIds])
        .where('locked_until', '>', toIso(at))
        .execute();
      for (const row of rows) {
        const until = new Date(row.locked_until as string);
        const known = locked.get(row.identity_id);
        if (!known || known < until) locked.set(row.identity_id, until);
      }
      return locked;
    },
  };
}
