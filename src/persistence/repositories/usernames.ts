/**
 * Username claims (docs/decisions/0016-unambiguous-usernames.md): one `usernames` row per username key, held by a
 * password authenticator or by a pending updb enrollment. The primary key is the store's answer to "is this username
 * free?", so two requests racing for one username cannot both win, whichever table each writes. These helpers run
 * inside the transaction that writes the holder, so a holder and its claim exist together or not at all; deleting
 * the holder releases the claim (foreign key, on delete cascade).
 */
import type { Kysely } from 'kysely';
import { usernameKey } from '../../policy/names.js';
import type { Tables } from '../tables.js';

export type UsernameHolder = { authenticatorId: string } | { enrollmentId: string };

/** Claims the key of `username` for `holder` (already written in this transaction); throws a unique violation when held. */
export async function claimUsername(db: Kysely<Tables>, username: string, holder: UsernameHolder, at: string): Promise<void> {
  await db
    .insertInto('usernames')
    .values({
      username_key: usernameKey(username),
      authenticator_id: 'authenticatorId' in holder ? holder.authenticatorId : null,
      enrollment_id: 'enrollmentId' in holder ? holder.enrollmentId : null,
      created_at: at,
    })
    .execute();
}

/** Moves the claim of a password authenticator to the key of its new `username` (a rename); throws when that is held. */
export async function reclaimUsername(db: Kysely<Tables>, authenticatorId: string, username: string, at: string): Promise<void> {
  const moved = await db
    .updateTable('usernames')
    .set({ username_key: usernameKey(username) })
    .where('authenticator_id', '=', authenticatorId)
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) === 0) await claimUsername(db, username, { authenticatorId }, at);
}

/** Whether the key of `username` is held by anything but the authenticator `exceptAuthenticatorId`. */
export async function usernameHeld(db: Kysely<Tables>, username: string, exceptAuthenticatorId?: string): Promise<boolean> {
  let query = db.selectFrom('usernames').select('username_key').where('username_key', '=', usernameKey(username));
  if (exceptAuthenticatorId !== undefined) {
    query = query.where((eb) => eb.or([eb('authenticator_id', 'is', null), eb('authenticator_id', '!=', exceptAuthenticatorId)]));
  }
  return (await query.executeTakeFirst()) !== undefined;
}

/** The `table.column`s whose unique violation means "this username is taken". */
const USERNAME_COLUMNS = new Set(['usernames.username_key', 'authenticators.username', 'authenticators.username_key']);

/**
 * Whether `error` is a unique violation of a username: the claim, or an authenticator's own username columns.
 * SQLite says `UNIQUE constraint failed: usernames.username_key` (code ..._UNIQUE, or ..._PRIMARYKEY for the key);
 * PostgreSQL gives SQLSTATE 23505 with the table and `Key (username_key)=(...) already exists.`
 */
export function isUsernameConflict(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown; detail?: unknown; table?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  let column: string | undefined;
  if ((e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') && typeof e.message === 'string') {
    column = /constraint failed: (\w+\.\w+)/.exec(e.message)?.[1];
  } else if (e.code === '23505' && typeof e.table === 'string' && typeof e.detail === 'string') {
    const key = /^Key \((\w+)\)=/.exec(e.detail)?.[1];
    column = key === undefined ? undefined : `${e.table}.${key}`;
  }
  return column !== undefined && USERNAME_COLUMNS.has(column);
}
