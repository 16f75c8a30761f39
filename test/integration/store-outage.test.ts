/**
 * The store unreachable for a while (issue 17, faults): requests that need it answer 503 in the envelope (the OIDC
 * provider: temporarily_unavailable) with Retry-After, none a 500; authentication kept in memory is not served past
 * the change feed's bound while the store cannot be read; and the controller recovers by itself when the store
 * returns. The store is cut off as a network would: a TCP relay between the controller and PostgreSQL is closed
 * and opened again. PostgreSQL only: an embedded SQLite file cannot become unreachable.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newSharedDatabase, testDialect } from '../helpers/database.js';
import { tcpRelay as relay } from '../helpers/tcp-relay.js';
import { createIdentity } from '../helpers/fixtures.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { sql } from 'kysely';
import { openDatabase } from '../../src/persistence/database.js';

/** Polls `check` until it holds or `ms` have passed. */
async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Resolves once PostgreSQL shows `count` of this test's `pg_sleep` queries running, asked over a connection of its own
 * straight to the store (one through the relay would be cut with the others and then handed out again by the pool).
 */
async function untilSleepersRun(url: string, count: number): Promise<void> {
  const observer = await openDatabase({ kind: 'postgres', url });
  try {
    for (let attempt = 0; attempt < 200; attempt++) {
      const { rows } = await sql<{ n: string }>`select count(*) as n from pg_stat_activity where datname = current_database() and state = 'active' and query = 'select pg_sleep(5)'`.execute(observer.db);
      if (Number(rows[0]?.n) >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`PostgreSQL never showed ${count} running pg_sleep queries`);
  } finally {
    await observer.close();
  }
}

if (testDialect === 'postgres') {
  describe('a query in flight when the store goes away (postgres)', () => {
    it('fails that query, raises nothing uncaught, and the next query works once the store is back', async () => {
      const shared = await newSharedDatabase();
      const link = await relay(new URL(shared.db));
      const through = new URL(shared.db);
      through.hostname = '127.0.0.1';
      through.port = String(link.port);
      const reported: Error[] = [];
      const database = await openDatabase({ kind: 'postgres', url: through.toString() }, { onConnectionError: (error) => reported.push(error) });
      try {
        // Several connections checked out and busy at the moment the link drops: pg reports the loss to each
        // connection as an event as well as to its query; an event nobody listens to would end the process.
        const busy = [1, 2, 3].map(() => sql`select pg_sleep(5)`.execute(database.db).then(() => 'finished', (error: Error) => error.message));
        // The cut must find the three queries running at the server: wait until PostgreSQL lists them as active.
        await untilSleepersRun(shared.db, 3);
        await link.cut();
        for (const outcome of await Promise.all(busy)) assert.match(outcome, /terminated|ECONNRESET|closed/i);
        assert.ok(reported.length >= 1, 'the lost connections are reported to the listener');
        await link.restore();
        const { rows } = await sql<{ one: number }>`select 1 as one`.execute(database.db);
        assert.equal(rows[0]?.one, 1);
      } finally {
        await link.restore();
        await database.close();
        await link.cut();
        await shared.drop();
      }
    });
  });

  describe('the store unreachable for a while (postgres)', () => {
    let shared: { db: string; drop(): Promise<void> };
    let link: Awaited<ReturnType<typeof relay>>;
    let ctl: TestController;

    before(async () => {
      shared = await newSharedDatabase();
      const direct = new URL(shared.db);
      link = await relay(direct);
      const through = new URL(shared.db);
      through.hostname = '127.0.0.1';
      through.port = String(link.port);
      ctl = await startTestController({ databaseTarget: through.toString() });
      const database = await openDatabase({ kind: 'postgres', url: shared.db });
      await createIdentity(database, { name: 'outage-user', password: 'outage-password' });
      await database.close();
    });
    after(async () => {
      await link.restore();
      await ctl.close();
      await link.cut();
      await shared.drop();
    });

    it('answers 503 in the envelope while the store is gone, serves nothing from memory past the bound, and recovers by itself', async () => {
      const login = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'outage-user', password: 'outage-password' } });
      assert.equal(login.status, 200, login.text);
      const session = { 'svc-session': login.json().data.token as string };
      const whoAmI = () => ctl.fetch('/edge/client/v1/current-api-session', { headers: session });
      assert.equal((await whoAmI()).status, 200);

      await link.cut();
      const cutAt = Date.now();
      assert.ok(await eventually(async () => (await whoAmI()).status === 503, 15_000), 'the request that needs the store answers 503');
      // The change feed's bound is 1 s: well past it, nothing is answered from memory any more.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, cutAt + 1_500 - Date.now())));
      for (let i = 0; i < 3; i++) {
        const refused = await whoAmI();
        assert.equal(refused.status, 503, refused.text);
        assert.equal(refused.json().error.code, 'STORE_UNAVAILABLE');
        assert.equal(refused.headers['retry-after'], '1');
      }
      const listing = await ctl.fetch('/edge/management/v1/identities', { headers: session });
      assert.equal(listing.status, 503, listing.text);
      const token = await ctl.fetch('/oidc/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&refresh_token=whatever&client_id=svc' });
      assert.equal(token.status, 503, token.text);
      assert.equal(token.json().error, 'temporarily_unavailable');

      await link.restore();
      assert.ok(await eventually(async () => (await whoAmI()).status === 200, 15_000), 'the same session works again once the store is back');
    });
  });
}
