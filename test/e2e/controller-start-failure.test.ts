/**
 * A controller that cannot start (here: its port is taken) reports why and leaves nothing open behind it:
 * no listener, no database connection.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestController } from '../helpers/controller.js';
import { newSharedDatabase, testDialect } from '../helpers/database.js';
import { freePort } from '../helpers/ports.js';

describe(`a controller that cannot start (${testDialect})`, () => {
  const blocker = createServer();
  let port: number;
  let shared: { db: string; drop(): Promise<void> };
  before(async () => {
    port = await freePort();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    shared = await newSharedDatabase();
  });
  after(async () => {
    await new Promise((resolve) => blocker.close(resolve));
    await shared.drop();
  });

  it('fails with the listen error and closes its store connections', async () => {
    await assert.rejects(startTestController({ databaseTarget: shared.db, ports: [port] }), /EADDRINUSE/);
    if (testDialect === 'postgres') {
      const name = new URL(shared.db).pathname.slice(1);
      const admin = new pg.Client({ connectionString: process.env.SVC_TEST_POSTGRES_URL });
      await admin.connect();
      const { rows } = await admin.query('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
      await admin.end();
      assert.equal(rows[0].n, 0, 'no connection to the store is left open');
    }
  });

  it('starts on newly picked ports when a port it picked was taken before it could bind, and answers there', async () => {
    // The first pick is the port the blocker holds, as if another process took it between the pick and the bind.
    const picks = [port];
    const ctl = await startTestController({ pickPort: async () => picks.shift() ?? freePort() });
    try {
      assert.deepEqual(picks, [], 'the taken port was picked first');
      assert.notEqual(ctl.ports[0], port);
      assert.equal((await ctl.fetch('/edge/client/v1/version')).status, 200);
    } finally {
      await ctl.close();
    }
  });
});
