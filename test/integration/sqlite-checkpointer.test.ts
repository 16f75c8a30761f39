/**
 * WAL checkpoints beside the event loop (src/persistence/sqlite-checkpointer.ts): a SQLite store opened from a file
 * gets its log copied into the database file by a worker, without the controller's connection checkpointing, and
 * closing the store leaves no log behind. Always on SQLite files: that is the store it is about.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { openDatabase } from '../../src/persistence/database.js';
import { CHECKPOINT_INTERVAL_MS, FALLBACK_CHECKPOINT_PAGES } from '../../src/persistence/sqlite-checkpointer.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-checkpoint-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Polls `done` until it holds, for at most `ms`. */
async function eventually(done: () => boolean, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await sleep(20)) if (done()) return true;
  return done();
}

describe('SQLite checkpoints beside the event loop', () => {
  it('copy the log into the database file without the controller connection checkpointing, and closing leaves no log', async () => {
    const path = join(dir, 'store.sqlite');
    const store = await openDatabase({ kind: 'sqlite', path });
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db);
    assert.equal(rows[0]?.wal_autocheckpoint, FALLBACK_CHECKPOINT_PAGES);
    await sql`create table filler (body text not null)`.execute(store.db);
    // Let a checkpoint take the schema in, then measure the file: what grows it from here is the worker's doing.
    await sleep(CHECKPOINT_INTERVAL_MS * 3);
    const before = statSync(path).size;
    // About 2 MB, some 500 pages: far below the fallback bound, so the controller's connection checkpoints nothing.
    for (let i = 0; i < 50; i++) {
      await sql`insert into filler (body) select ${'x'.repeat(4_000)} from (select 1 union all select 2 union all select 3 union all select 4 union all select 5 union all select 6 union all select 7 union all select 8 union all select 9 union all select 10)`.execute(store.db);
    }
    assert.ok(await eventually(() => statSync(path).size > before + 1_900_000, 10_000), `the database file stayed at ${statSync(path).size} bytes`);
    const { rows: count } = await sql<{ n: number }>`select count(*) as n from filler`.execute(store.db);
    assert.equal(count[0]?.n, 500);
    await store.close();
    assert.equal(existsSync(`${path}-wal`), false);

    // Reopened, everything is there.
    const again = await openDatabase({ kind: 'sqlite', path });
    const { rows: reread } = await sql<{ n: number }>`select count(*) as n from filler`.execute(again.db);
    assert.equal(reread[0]?.n, 500);
    await again.close();
  });

  it('leave an in-memory store to its own connection', async () => {
    const store = await openDatabase({ kind: 'sqlite', path: ':memory:' });
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db);
    assert.equal(rows[0]?.wal_autocheckpoint, 1000);
    await store.close();
  });
});
