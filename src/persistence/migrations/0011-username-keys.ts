/**
 * Unambiguous usernames (issue 12, point 5; docs/decisions/0016-unambiguous-usernames.md): `alice`, `Alice` and the
 * fullwidth `ａｌｉｃｅ` are one username. Password authenticators get `username_key` (what logins look up), and the
 * `usernames` table holds each key once, for the password authenticator or pending updb enrollment that has it.
 *
 * Keys are computed here in JavaScript: neither SQLite nor PostgreSQL (without ICU collations) can NFKC-normalise
 * and case-fold the same way. If existing usernames collide under the key, the migration stops and names them
 * before changing anything: choosing which one keeps its name is an operator's call, not a migration's.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import { printable } from '../../errors/excerpt.js';
import { usernameKey } from '../../policy/names.js';

interface Holder {
  kind: 'authenticator' | 'pending enrollment';
  id: string;
  username: string;
  key: string;
}

/** How many colliding groups the error lists before it says how many more there are. */
const LISTED_COLLISIONS = 20;
/** Rows per multi-row insert: far below either dialect's limit on bound parameters. */
const CHUNK = 250;

/** The updb rows of `table` that have a username, with the key each would get. */
async function holdersIn(db: Kysely<any>, table: 'authenticators' | 'enrollments'): Promise<Holder[]> {
  const rows = await db.selectFrom(table).select(['id', 'username']).where('method', '=', 'updb').where('username', 'is not', null).execute();
  const kind = table === 'authenticators' ? 'authenticator' : 'pending enrollment';
  return rows.map((row) => ({ kind, id: String(row.id), username: String(row.username), key: usernameKey(String(row.username)) }));
}

/** The usernames that would share a key, grouped, or an empty list. */
function collisions(holders: Holder[]): Holder[][] {
  const byKey = new Map<string, Holder[]>();
  for (const holder of holders) {
    const group = byKey.get(holder.key);
    if (group) group.push(holder);
    else byKey.set(holder.key, [holder]);
  }
  return [...byKey.values()].filter((group) => group.length > 1);
}

/** The error an operator reads at start: each group's usernames (controls and bidi characters escaped) and holders. */
function collisionMessage(groups: Holder[][]): string {
  const listed = groups.slice(0, LISTED_COLLISIONS).map((group) => group.map((h) => `"${printable(h.username)}" (${h.kind} ${h.id})`).join(' and '));
  const more = groups.length > LISTED_COLLISIONS ? `; and ${groups.length - LISTED_COLLISIONS} more groups` : '';
  return (
    `usernames must be unique ignoring case and Unicode width/compatibility forms, but these collide: ${listed.join('; ')}${more}. ` +
    'Keep one of each group: delete the other authenticators or enrollments (or change their usernames in the store), then start the controller again'
  );
}

async function addKeys(db: Kysely<any>, holders: Holder[]): Promise<void> {
  await db.schema.alterTable('authenticators').addColumn('username_key', 'text').execute();
  await db.schema
    .createTable('usernames')
    .addColumn('username_key', 'text', (c) => c.primaryKey())
    .addColumn('authenticator_id', 'text', (c) => c.unique().references('authenticators.id').onDelete('cascade'))
    .addColumn('enrollment_id', 'text', (c) => c.unique().references('enrollments.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    // Exactly one holder: a claim nobody holds could never be released.
    .addCheckConstraint('usernames_one_holder', sql`(authenticator_id is null) <> (enrollment_id is null)`)
    .execute();

  for (const holder of holders) {
    if (holder.kind === 'authenticator') await db.updateTable('authenticators').set({ username_key: holder.key }).where('id', '=', holder.id).execute();
  }
  const now = new Date().toISOString();
  for (let start = 0; start < holders.length; start += CHUNK) {
    const rows = holders.slice(start, start + CHUNK).map((h) => ({
      username_key: h.key,
      authenticator_id: h.kind === 'authenticator' ? h.id : null,
      enrollment_id: h.kind === 'authenticator' ? null : h.id,
      created_at: now,
    }));
    await db.insertInto('usernames').values(rows).execute();
  }
  // Created after the keys are filled, so it checks them too; logins look the key up through it. (Not named
  // `authenticators_username_key`: PostgreSQL already gave that name to the unique constraint on `username`.)
  await db.schema.createIndex('authenticators_by_username_key').on('authenticators').column('username_key').unique().execute();
}

export const usernameKeys: Migration = {
  async up(db: Kysely<any>) {
    const holders = [...(await holdersIn(db, 'authenticators')), ...(await holdersIn(db, 'enrollments'))];
    const groups = collisions(holders);
    // Checked before any change: on SQLite the migrator runs without a transaction, so a failure must find nothing done.
    if (groups.length > 0) throw new Error(collisionMessage(groups));
    // PostgreSQL already runs this inside the migrator's transaction; on SQLite open one, so it applies whole or not at all.
    if (db.isTransaction) await addKeys(db, holders);
    else await db.transaction().execute((trx) => addKeys(trx, holders));
  },
};
