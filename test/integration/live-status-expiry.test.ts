/**
 * The live status watch on a real store (issue 45): an identity whose only API session times out is told offline
 * when it times out, with no other change and no scan (one timer at the end of its liveness); activity reported
 * before then moves the end on instead. The session timeout is given to the watch directly, a fraction of a second,
 * so the test waits for the event rather than for the configured minimum of a minute.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../src/persistence/database.js';
import { createAuthorizationChangeLog } from '../../src/persistence/repositories/authorization-changes.js';
import { createApiSessionRepository } from '../../src/persistence/repositories/api-sessions.js';
import { createIdentityRepository } from '../../src/persistence/repositories/identities.js';
import { createSessionPresenceRepository } from '../../src/persistence/repositories/session-presence.js';
import { startChangeFeed, type ChangeFeed } from '../../src/services/change-feed/change-feed.js';
import { watchLiveStatus, type LiveStatusWatch } from '../../src/services/status-events/live-status.js';
import { createStatusEvents, type StatusEvent } from '../../src/services/status-events/status-events.js';
import { systemClock } from '../../src/shared/clock.js';
import { openTestDatabase, testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { eventually } from '../helpers/routers.js';

const TIMEOUT_MS = 400;

describe(`live status: an API session timing out (${testDialect})`, () => {
  let database: Database;
  let feed: ChangeFeed;
  let watch: LiveStatusWatch;
  const told: StatusEvent[] = [];

  before(async () => {
    database = await openTestDatabase();
    feed = await startChangeFeed({ log: createAuthorizationChangeLog(database), signal: database.changes, onError: (error) => assert.fail(String(error)) });
    const events = createStatusEvents();
    events.subscribe((event) => told.push(event));
    watch = watchLiveStatus({
      feed,
      events,
      routers: { statusOf: async () => new Map() },
      identities: createIdentityRepository(database),
      sessions: { presence: createSessionPresenceRepository(database), legacyTimeoutMs: TIMEOUT_MS, accessTokenLifetimeMs: 0 },
      clock: systemClock,
      onError: (error) => assert.fail(String(error)),
    });
  });
  after(async () => {
    watch.close();
    await feed.close();
    await database.close();
  });

  const statesOf = (id: string) => told.filter((e) => e.kind === 'identity' && e.id === id).map((e) => (e.kind === 'identity' ? e.hasApiSession : undefined));

  async function login(identityId: string, id: string): Promise<void> {
    const now = new Date();
    await createApiSessionRepository(database).insert(
      { id, identityId, authMethod: 'password', authenticatorId: '', ipAddress: null, configTypes: [], createdAt: now, lastActivityAt: now, outstanding: [], mfaRequired: false },
      `hash-${id}`,
    );
  }

  it('tells an identity offline when its only session times out, with nothing else changing, and forgets its timer', async () => {
    const user = await createIdentity(database, { name: 'expiring' });
    await login(user.id, 'expiring-session1');
    assert.ok(await eventually(() => statesOf(user.id).at(-1) === true));
    assert.equal(watch.online, 1);
    assert.ok(await eventually(() => statesOf(user.id).at(-1) === false), JSON.stringify(told));
    assert.deepEqual(statesOf(user.id), [true, false]);
    assert.equal(watch.online, 0, 'nothing is kept of an identity offline');
  });

  it('keeps an identity online past its first end when activity was reported meanwhile', async () => {
    const user = await createIdentity(database, { name: 'active' });
    await login(user.id, 'active-session1');
    assert.ok(await eventually(() => statesOf(user.id).at(-1) === true));
    // Activity a moment later than the login moves the end past the first timer's.
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS / 2));
    await createApiSessionRepository(database).touch('active-session1', new Date());
    assert.ok(await eventually(() => statesOf(user.id).at(-1) === false), JSON.stringify(told));
    const offlineAt = told.find((e) => e.kind === 'identity' && e.id === user.id && !e.hasApiSession)!.at.getTime();
    const onlineAt = told.find((e) => e.kind === 'identity' && e.id === user.id && e.hasApiSession)!.at.getTime();
    assert.ok(offlineAt - onlineAt >= TIMEOUT_MS, 'told offline only after the activity\'s own timeout');
    assert.deepEqual(statesOf(user.id), [true, false]);
  });
});
