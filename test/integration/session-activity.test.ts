/**
 * Session activity bookkeeping against a real store: remembered in memory, written in one batch, never moved
 * backwards, and a close that waits for a write already under way.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../src/persistence/database.js';
import { createApiSessionRepository } from '../../src/persistence/repositories/api-sessions.js';
import { createSessionActivity } from '../../src/services/sessions/session-activity.js';
import { openTestDatabase, testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';

describe(`session activity (${testDialect})`, () => {
  let database: Database;
  const t0 = new Date('2026-01-01T00:00:00.000Z');
  const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
  before(async () => {
    database = await openTestDatabase();
    const identity = await createIdentity(database, { name: 'active-user' });
    const sessions = createApiSessionRepository(database);
    for (const id of ['s1', 's2']) await sessions.insert({ id, identityId: identity.id, authMethod: 'password', authenticatorId: '', ipAddress: null, configTypes: [], createdAt: t0, lastActivityAt: t0, outstanding: [], mfaRequired: false }, `hash-${id}`);
  });
  after(async () => database.close());

  const stored = async (id: string) => (await createApiSessionRepository(database).findById(id))!.lastActivityAt.toISOString();

  it('remembers activity in memory and writes every session in one flush', async () => {
    const activity = createSessionActivity({ apiSessions: createApiSessionRepository(database), flushIntervalMs: 60_000, onError: (e) => assert.fail(String(e)) });
    activity.seen('s1', at(5));
    activity.seen('s2', at(6));
    activity.seen('s1', at(4)); // older news never replaces newer
    assert.equal(activity.pending('s1')?.toISOString(), at(5).toISOString());
    assert.equal(await stored('s1'), t0.toISOString(), 'nothing written yet');
    const flushing = activity.flush();
    assert.equal(activity.pending('s1')?.toISOString(), at(5).toISOString(), 'still visible while the write runs');
    await flushing;
    assert.equal(await stored('s1'), at(5).toISOString());
    assert.equal(await stored('s2'), at(6).toISOString());
    await activity.close();
  });

  it('never moves a stored time backwards', async () => {
    const activity = createSessionActivity({ apiSessions: createApiSessionRepository(database), flushIntervalMs: 60_000, onError: (e) => assert.fail(String(e)) });
    activity.seen('s1', at(1));
    await activity.flush();
    assert.equal(await stored('s1'), at(5).toISOString());
    await activity.close();
  });

  it('waits in close for a write already under way, then writes what is left', async () => {
    const activity = createSessionActivity({ apiSessions: createApiSessionRepository(database), flushIntervalMs: 60_000, onError: (e) => assert.fail(String(e)) });
    activity.seen('s1', at(10));
    const first = activity.flush();
    activity.seen('s2', at(11));
    await activity.close();
    await first;
    assert.equal(await stored('s1'), at(10).toISOString());
    assert.equal(await stored('s2'), at(11).toISOString());
  });

  it('forgets a session so nothing is written for it', async () => {
    const activity = createSessionActivity({ apiSessions: createApiSessionRepository(database), flushIntervalMs: 60_000, onError: (e) => assert.fail(String(e)) });
    activity.seen('s2', at(20));
    activity.forget('s2');
    await activity.close();
    assert.equal(await stored('s2'), at(11).toISOString());
  });
});
