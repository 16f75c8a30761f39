/**
 * The used states of external-IdP sign-ins in the store (migration 0037; decision 0084): marking a state used is true
 * once and false after (also when two marks race), the housekeeping sweep removes only the rows whose auth request
 * has expired, and a store that fails says so instead of answering "unused". Real store.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../src/persistence/database.js';
import { createUsedIdpStateRepository } from '../../src/persistence/repositories/used-idp-states.js';
import { buildHousekeeping } from '../../src/services/housekeeping/index.js';
import { manualClock } from '../../src/shared/clock.js';
import { newSecretToken } from '../../src/shared/random.js';
import { openTestDatabase, testDialect } from '../helpers/database.js';

const MINUTE = 60_000;

describe(`used external-IdP states (${testDialect})`, () => {
  let database: Database;
  const clock = manualClock(new Date());
  const inMinutes = (n: number) => new Date(clock.now().getTime() + n * MINUTE);
  const stored = async () => (await database.db.selectFrom('used_idp_states').select('state_hash').execute()).map((row) => row.state_hash).sort();

  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database?.close());

  it('marks a state used once: true the first time, false every time after, and keeps the first expiry', async () => {
    const states = createUsedIdpStateRepository(database);
    const hash = newSecretToken(32);
    assert.equal(await states.use(hash, inMinutes(5)), true);
    assert.equal(await states.use(hash, inMinutes(5)), false);
    assert.equal(await states.use(hash, inMinutes(50)), false, 'a later expiry does not make it new');
    const row = await database.db.selectFrom('used_idp_states').selectAll().where('state_hash', '=', hash).executeTakeFirstOrThrow();
    assert.equal(row.expires_at, inMinutes(5).toISOString());
    assert.equal(await states.use(newSecretToken(32), inMinutes(5)), true, 'another state is its own');
  });

  it('lets exactly one of several simultaneous uses of one state through', async () => {
    const states = createUsedIdpStateRepository(database);
    const hash = newSecretToken(32);
    const answers = await Promise.all(Array.from({ length: 8 }, () => states.use(hash, inMinutes(5))));
    assert.equal(answers.filter(Boolean).length, 1, JSON.stringify(answers));
  });

  it('is swept by housekeeping once its auth request has expired, and not before', async () => {
    await database.db.deleteFrom('used_idp_states').execute();
    const states = createUsedIdpStateRepository(database);
    const [soon, later] = [newSecretToken(32), newSecretToken(32)];
    await states.use(soon, inMinutes(2));
    await states.use(later, inMinutes(10));
    const housekeeping = buildHousekeeping(database, { clock, accessTokenLifetimeMs: 30 * MINUTE, sessionTimeoutMs: 30 * MINUTE });
    assert.equal((await housekeeping.sweep()).idpStates, 0);
    assert.deepEqual(await stored(), [soon, later].sort(), 'nothing expired: both stay');
    clock.advance(3 * MINUTE);
    assert.equal((await housekeeping.sweep()).idpStates, 1);
    assert.deepEqual(await stored(), [later]);
    // Still refused while it lives; once swept, its flow has expired and is refused for that before any look-up.
    assert.equal(await states.use(later, inMinutes(7)), false);
    clock.advance(8 * MINUTE);
    assert.equal((await housekeeping.sweep()).idpStates, 1);
    assert.deepEqual(await stored(), []);
  });

  it('throws when the store fails, rather than answering that the state is unused', async () => {
    const broken = await openTestDatabase();
    const states = createUsedIdpStateRepository(broken);
    await broken.close();
    await assert.rejects(states.use(newSecretToken(32), inMinutes(5)));
  });
});
