/**
 * SQLite writes off the event loop (src/persistence/sqlite-writer.ts, decision 0053): the writer thread runs a write's
 * steps as one transaction, stops where a step changed nothing, rolls everything back on an error, and takes turns
 * with the controller's own connection through the shared lock, so neither fails with SQLITE_BUSY nor commits inside
 * the other's transaction. Always on SQLite files: a second connection cannot share an in-memory store.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import SqliteDriver from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase } from '../../src/persistence/database.js';
import { EVENT_LOOP_WRITES, giveBackWriteLock, newWriteLock, takeWriteLock } from '../../src/persistence/sqlite-write-lock.js';
import { startSqliteWriter, type SqliteWriter } from '../../src/persistence/sqlite-writer.js';
import { prepareQuery, writeAtomically } from '../../src/persistence/prepared-query.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-writer-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** A new store file with one table `notes (id primary key, body)` and a driver connection of the test's own. */
function newStoreFile(): { path: string; driver: SqliteDriver.Database } {
  const path = join(dir, `store-${files++}.sqlite`);
  const driver = new SqliteDriver(path);
  driver.pragma('journal_mode = WAL');
  driver.exec('create table notes (id text primary key, body text not null)');
  return { path, driver };
}

const insertNote = (id: string, body: string) => ({ sql: 'insert into notes (id, body) values (?, ?)', parameters: [id, body] });
const count = (driver: SqliteDriver.Database) => (driver.prepare('select count(*) as n from notes').get() as { n: number }).n;
/** Whether `promise` has settled after the event loop has turned a few times. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await sleep(100);
  return done;
}

describe('the SQLite writer thread', () => {
  const writers: SqliteWriter[] = [];
  after(async () => {
    for (const writer of writers) await writer.stop();
  });
  const start = async (path: string, lock = newWriteLock(), busyTimeoutMs = 5_000) => {
    const writer = startSqliteWriter(path, lock, { busyTimeoutMs, fallbackCheckpointPages: 10_000 });
    assert.ok(writer, 'a store in a file has a writer thread');
    writers.push(writer);
    assert.equal(await writer.ready, true, 'the thread opened its connection');
    return writer;
  };

  it('runs a write as one transaction, stopping after a step that changed nothing', async () => {
    const { path, driver } = newStoreFile();
    const writer = await start(path);
    const outcomes = await writer.write([
      insertNote('a', 'first'),
      { sql: 'select id, body from notes where id = ?', parameters: ['a'] },
      { sql: "update notes set body = 'second' where id = ?", parameters: ['missing'], stopUnlessChanged: true },
      insertNote('b', 'never written'),
    ]);
    assert.deepEqual(
      outcomes?.map(({ rows, changes }) => ({ rows, changes })),
      [
        { rows: [], changes: 1 },
        { rows: [{ id: 'a', body: 'first' }], changes: 1 },
        { rows: [], changes: 0 },
      ],
    );
    // Committed by the time it answers: another connection reads it at once.
    assert.deepEqual(driver.prepare('select id, body from notes').all(), [{ id: 'a', body: 'first' }]);
    driver.close();
  });

  it('rolls the whole write back when a step fails, with the driver message and code', async () => {
    const { path, driver } = newStoreFile();
    const writer = await start(path);
    await writer.write([insertNote('a', 'kept')]);
    await assert.rejects(writer.write([insertNote('b', 'rolled back'), insertNote('a', 'duplicate')]) as Promise<unknown>, (error: Error & { code?: string }) => {
      assert.equal(error.code, 'SQLITE_CONSTRAINT_PRIMARYKEY');
      assert.match(error.message, /UNIQUE constraint failed: notes\.id/);
      return true;
    });
    assert.equal(count(driver), 1);
    // A bad statement is refused the same way, and the thread goes on serving.
    await assert.rejects(writer.write([{ sql: 'insert into nowhere values (1)', parameters: [] }]) as Promise<unknown>, /no such table: nowhere/);
    await writer.write([insertNote('c', 'after the failures')]);
    assert.equal(count(driver), 2);
    driver.close();
  });

  it('waits while the event loop holds the write lock, and gives up with SQLITE_BUSY after its busy timeout', async () => {
    const { path, driver } = newStoreFile();
    const lock = newWriteLock();
    const writer = await start(path, lock, 300);
    assert.ok(takeWriteLock(lock, EVENT_LOOP_WRITES, 0));
    const waiting = writer.write([insertNote('a', 'after the turn')]) as Promise<unknown>;
    assert.equal(await settled(waiting), false, 'the write went ahead while the event loop held the lock');
    giveBackWriteLock(lock, EVENT_LOOP_WRITES);
    await waiting;
    assert.equal(count(driver), 1);

    assert.ok(takeWriteLock(lock, EVENT_LOOP_WRITES, 0));
    await assert.rejects(writer.write([insertNote('b', 'never written')]) as Promise<unknown>, (error: Error & { code?: string }) => error.code === 'SQLITE_BUSY');
    giveBackWriteLock(lock, EVENT_LOOP_WRITES);
    assert.equal(count(driver), 1);
    driver.close();
  });

  it('answers undefined once stopped, so that callers write on the event loop', async () => {
    const { path, driver } = newStoreFile();
    const writer = await start(path);
    await writer.stop();
    assert.equal(await writer.ready, true);
    assert.equal(writer.write([insertNote('a', 'nowhere')]), undefined);
    assert.equal(count(driver), 0);
    driver.close();
  });

  it('leaves writes on the event loop when the thread cannot open the store', async () => {
    const writer = startSqliteWriter(join(dir, 'no-such-store.sqlite'), newWriteLock(), { busyTimeoutMs: 5_000, fallbackCheckpointPages: 10_000 });
    assert.ok(writer);
    writers.push(writer);
    assert.equal(await writer.ready, false);
    assert.equal(writer.write([insertNote('a', 'nowhere')]), undefined);
  });

  it('gives up a thread that does not start in time', async () => {
    const { path, driver } = newStoreFile();
    const writer = startSqliteWriter(path, newWriteLock(), { busyTimeoutMs: 5_000, fallbackCheckpointPages: 10_000, startTimeoutMs: 0 });
    assert.ok(writer);
    writers.push(writer);
    assert.equal(await writer.ready, false);
    assert.equal(writer.write([insertNote('a', 'nowhere')]), undefined);
    driver.close();
  });

  it('has no thread for an in-memory store', () => {
    assert.equal(startSqliteWriter(':memory:', newWriteLock(), { busyTimeoutMs: 5_000, fallbackCheckpointPages: 10_000 }), undefined);
  });
});

describe('a SQLite store in a file with its writer thread', () => {
  it('takes turns: a write sent meanwhile waits for a transaction of the event loop to end, and sees all of it', async () => {
    const path = join(dir, `store-${files++}.sqlite`);
    const store = await openDatabase({ kind: 'sqlite', path });
    await sql`create table notes (id text primary key, body text not null)`.execute(store.db);
    const countNotes = prepareQuery<Record<string, never>, { n: number }>((db) => db.selectFrom('notes' as never).select(sql<number>`count(*)`.as('n')) as never);
    const addNote = prepareQuery<{ id: string; body: string }>((db, param) => db.insertInto('notes' as never).values({ id: param('id'), body: param('body') } as never) as never);

    let sent: Promise<unknown> | undefined;
    await store.db.transaction().execute(async (trx) => {
      // The transaction reads first: had the thread committed before its first write, that write would fail
      // (SQLITE_BUSY_SNAPSHOT: its snapshot is no longer the newest).
      const { rows: before } = await sql<{ n: number }>`select count(*) as n from notes`.execute(trx);
      assert.equal(before[0]?.n, 0);
      // Sent while the transaction is open and awaiting: the writer thread must not commit inside it.
      sent = writeAtomically(store.db, [
        { query: countNotes, values: {} },
        { query: addNote, values: { id: 'b', body: 'from the writer thread' } },
      ]);
      assert.equal(await settled(sent), false, 'the writer thread wrote inside the event loop transaction');
      await sql`insert into notes (id, body) values ('a', 'in the transaction')`.execute(trx);
      await sql`insert into notes (id, body) values ('c', 'in the transaction too')`.execute(trx);
    });
    const outcomes = (await sent) as Array<{ rows: Array<{ n: number }> }>;
    assert.equal(outcomes[0]?.rows[0]?.n, 2, 'the write saw the whole transaction');
    const { rows } = await sql<{ n: number }>`select count(*) as n from notes`.execute(store.db);
    assert.equal(rows[0]?.n, 3);

    // Many writes from both sides at once: none fails with SQLITE_BUSY, every one is there.
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 200; i++) {
      writes.push(i % 2 === 0 ? writeAtomically(store.db, [{ query: addNote, values: { id: `w${i}`, body: 'thread' } }]) : sql`insert into notes (id, body) values (${`e${i}`}, 'event loop')`.execute(store.db));
    }
    await Promise.all(writes);
    const { rows: after } = await sql<{ n: number }>`select count(*) as n from notes`.execute(store.db);
    assert.equal(after[0]?.n, 203);
    await store.close();
  });
});
