/**
 * Prepared queries (src/persistence/prepared-query.ts, decision 0043) on the real store: built once, they read and
 * write what the same query built each time does, with fresh values on every run, in transactions too; booleans
 * bind on SQLite; a missing value or a value Kysely would write into the SQL text is refused rather than run; on
 * PostgreSQL the statement is prepared under its name on the connection that ran it. Run on the store they go
 * straight to the driver: timed for the metrics, never inside a transaction open meanwhile; and on SQLite work of
 * prepared queries runs at once in a transaction of its own, all or nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../../src/persistence/database.js';
import { prepareQuery, preparedInsert, writeAtomically } from '../../src/persistence/prepared-query.js';
import { newEntityId } from '../../src/shared/random.js';
import { newDatabaseTarget, openTestDatabase, testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';

const insertSession = preparedInsert('api_sessions');
const findSession = prepareQuery<{ tokenHash: string }, { id: string; mfa_required: unknown; auth_method: string }>((db, param) =>
  db.selectFrom('api_sessions').select(['id', 'mfa_required', 'auth_method']).where('token_hash', '=', param('tokenHash')),
);
const renameMethod = prepareQuery<{ id: string; method: string }>((db, param) =>
  db.updateTable('api_sessions').set({ auth_method: param('method') }).where('id', '=', param('id')).where('auth_method', '!=', 'cert'),
);

describe(`prepared queries (${testDialect})`, () => {
  let database: Database;
  let identityId: string;
  const row = (id: string, tokenHash: string, mfaRequired: boolean) => {
    const now = new Date().toISOString();
    return {
      id,
      identity_id: identityId,
      token_hash: tokenHash,
      auth_method: 'password',
      authenticator_id: '',
      ip_address: null,
      config_types: '[]',
      created_at: now,
      last_activity_at: now,
      outstanding_factors: '[]',
      mfa_required: mfaRequired,
    };
  };

  before(async () => {
    database = await openTestDatabase();
    identityId = (await createIdentity(database)).id;
  });
  after(() => database.close());

  it('writes and reads with fresh values on every run, as the query built each time does', async () => {
    const ids = [newEntityId(), newEntityId(), newEntityId()];
    for (const [i, id] of ids.entries()) await insertSession(database.db, row(id, `hash-${id}`, i === 1));
    for (const [i, id] of ids.entries()) {
      const { rows } = await findSession(database.db, { tokenHash: `hash-${id}` });
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.id, id);
      assert.equal(Boolean(rows[0]?.mfa_required), i === 1, 'booleans bind on both stores');
      const built = await database.db.selectFrom('api_sessions').select(['id', 'auth_method']).where('token_hash', '=', `hash-${id}`).executeTakeFirst();
      assert.deepEqual(built, { id, auth_method: 'password' });
    }
    assert.deepEqual((await findSession(database.db, { tokenHash: 'no-such-hash' })).rows, []);
    const changed = await renameMethod(database.db, { id: ids[0] as string, method: 'ext-jwt' });
    assert.equal(changed.numAffectedRows, 1n);
    assert.equal((await renameMethod(database.db, { id: 'no-such-id', method: 'ext-jwt' })).numAffectedRows, 0n);
    assert.equal((await findSession(database.db, { tokenHash: `hash-${ids[0]}` })).rows[0]?.auth_method, 'ext-jwt');
  });

  it('runs inside a transaction, and what it wrote goes when the transaction rolls back', async () => {
    const id = newEntityId();
    await assert.rejects(
      database.db.transaction().execute(async (trx) => {
        await insertSession(trx, row(id, `hash-${id}`, false));
        assert.equal((await findSession(trx, { tokenHash: `hash-${id}` })).rows.length, 1, 'seen inside the transaction');
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.equal((await findSession(database.db, { tokenHash: `hash-${id}` })).rows.length, 0);
  });

  it('refuses a run without one of its values, and a query whose value would be written into its SQL', async () => {
    await assert.rejects(findSession(database.db, {} as { tokenHash: string }), /no value for 'tokenHash'/);
    const inlined = prepareQuery<{ name: string }>((db, param) => db.selectFrom('identities').select('id').where('name', '=', sql.lit(param('name'))));
    await assert.rejects(inlined(database.db, { name: 'x' }), /put a parameter into its SQL text/);
  });

  it('runs on the store beside a transaction open meanwhile, never inside it', async () => {
    const [inside, outside] = [newEntityId(), newEntityId()];
    let running: Promise<unknown> | undefined;
    await assert.rejects(
      database.db.transaction().execute(async (trx) => {
        await insertSession(trx, row(inside, `hash-${inside}`, false));
        // On SQLite the one connection is the transaction's: the store's run must wait for it, not join it.
        running = insertSession(database.db, row(outside, `hash-${outside}`, false));
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('roll back');
      }),
      /roll back/,
    );
    await running;
    assert.equal((await findSession(database.db, { tokenHash: `hash-${inside}` })).rows.length, 0, 'the transaction rolled back');
    assert.equal((await findSession(database.db, { tokenHash: `hash-${outside}` })).rows.length, 1, 'the run beside it stayed');
  });

  it('times every run on the store for the metrics, failed ones too', async () => {
    const { target, drop } = await newDatabaseTarget();
    const timings: number[] = [];
    const timed = await openDatabase(target, { onQuery: (ms) => timings.push(ms) });
    try {
      const owner = (await createIdentity(timed)).id;
      const id = newEntityId();
      const before = timings.length;
      await insertSession(timed.db, { ...row(id, `hash-${id}`, false), identity_id: owner });
      await findSession(timed.db, { tokenHash: `hash-${id}` });
      await assert.rejects(insertSession(timed.db, { ...row(id, `hash-${id}`, false), identity_id: owner }));
      assert.equal(timings.length - before, 3);
      assert.ok(timings.slice(before).every((ms) => ms >= 0));
    } finally {
      await timed.close();
      await drop();
    }
  });

  it('writes steps as one transaction, all or nothing, stopping after a step that changed nothing', async () => {
    const [first, second, third] = [newEntityId(), newEntityId(), newEntityId()];
    const outcomes = await writeAtomically(database.db, [
      { query: insertSession.queryFor(row(first, `hash-${first}`, false)), values: row(first, `hash-${first}`, false) },
      { query: findSession, values: { tokenHash: `hash-${first}` } },
      { query: findSession, values: { tokenHash: 'no such hash' }, stopUnlessChanged: true },
      { query: insertSession.queryFor(row(second, `hash-${second}`, false)), values: row(second, `hash-${second}`, false) },
    ]);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.changes),
      [1, 1, 0],
      'a step sees what the steps before it wrote, and the write ends at the step that found nothing',
    );
    assert.equal((await findSession(database.db, { tokenHash: `hash-${second}` })).rows.length, 0, 'the steps after it never ran');

    await assert.rejects(
      writeAtomically(database.db, [
        { query: insertSession.queryFor(row(third, `hash-${third}`, false)), values: row(third, `hash-${third}`, false) },
        { query: insertSession.queryFor(row(first, `hash-${first}`, false)), values: row(first, `hash-${first}`, false) },
      ]),
    );
    assert.equal((await findSession(database.db, { tokenHash: `hash-${third}` })).rows.length, 0, 'a failed step rolls the whole write back');

    // In a transaction it joins it: rolled back with it.
    await assert.rejects(
      database.db.transaction().execute(async (trx) => {
        await writeAtomically(trx, [{ query: insertSession.queryFor(row(third, `hash-${third}`, false)), values: row(third, `hash-${third}`, false) }]);
        assert.equal((await findSession(trx, { tokenHash: `hash-${third}` })).rows.length, 1);
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.equal((await findSession(database.db, { tokenHash: `hash-${third}` })).rows.length, 0);
  });

  // PostgreSQL only: named statements are what the server keeps per connection.
  if (testDialect === 'postgres') it('is prepared by name on the connection that ran it', async () => {
    await database.db.transaction().execute(async (trx) => {
      await findSession(trx, { tokenHash: 'any' });
      const prepared = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(trx);
      assert.ok(
        prepared.rows.some((statement) => statement.name.startsWith('svc_prepared_') && statement.statement.includes('"token_hash" = $1')),
        JSON.stringify(prepared.rows),
      );
    });
  });
});
