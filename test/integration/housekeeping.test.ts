/**
 * The housekeeping sweep (services/housekeeping): the client sessions and posture reports of OIDC sessions that have
 * ended (revoked, or every token expired) go, those of live sessions stay whatever their age, and expired OIDC
 * authorization requests go while live ones stay. Real store, rows written through the repositories.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../src/persistence/database.js';
import { createEdgeSessionRepository } from '../../src/persistence/repositories/edge-sessions.js';
import { createOidcRepository } from '../../src/persistence/repositories/oidc.js';
import { createPostureResponseRepository } from '../../src/persistence/repositories/posture-responses.js';
import { buildHousekeeping } from '../../src/services/housekeeping/index.js';
import { manualClock } from '../../src/shared/clock.js';
import { newEntityId, newUuid } from '../../src/shared/random.js';
import { openTestDatabase, testDialect } from '../helpers/database.js';
import { createIdentity, createServiceRow } from '../helpers/fixtures.js';

const ACCESS_MS = 30 * 60_000;
const REFRESH_MS = 24 * 3_600_000;
const TIMEOUT_MS = 30 * 60_000;

describe(`housekeeping sweep (${testDialect})`, () => {
  let database: Database;
  const clock = manualClock(new Date());
  let identityId = '';
  let serviceId = '';

  before(async () => {
    database = await openTestDatabase();
    identityId = (await createIdentity(database, { name: 'swept' })).id;
    serviceId = await createServiceRow(database, 'swept-service', clock.now());
  });
  after(() => database.close());

  /** An OIDC session started `ageMs` ago, with a refresh token expiring at `refreshExpiresAt` (none when null), one client session and one posture report. */
  async function oidcSession(ageMs: number, refreshExpiresAt: Date | null, revoked = false): Promise<string> {
    const oidc = createOidcRepository(database);
    const createdAt = new Date(clock.now().getTime() - ageMs);
    const id = newUuid();
    await oidc.insertSession({ id, identityId, clientId: 'svc', issuer: 'https://ctrl.example', scope: 'openid', amr: ['pwd'], authTime: createdAt, configTypes: [], revokedAt: null, createdAt });
    if (refreshExpiresAt) {
      await oidc.insertRefreshToken({ id: newUuid(), sessionId: id, status: 'active', createdAt, expiresAt: refreshExpiresAt, rotatedAt: null, successorSealed: null }, `hash-${id}`);
    }
    await createEdgeSessionRepository(database).open({ id: newEntityId(), apiSessionId: id, apiSessionKind: 'oidc', identityId, serviceId, type: 'Dial', tags: {}, createdAt, updatedAt: createdAt });
    await createPostureResponseRepository(database).put({ kind: 'oidc', id }, [{ slot: 'ENDPOINT_STATE:woken', facts: { typeId: 'ENDPOINT_STATE', event: 'woken' }, receivedAt: createdAt }], ['ENDPOINT_STATE']);
    if (revoked) await oidc.revokeSession(id, clock.now());
    return id;
  }

  const left = async (sessionId: string) => ({
    clientSessions: (await database.db.selectFrom('edge_sessions').select('id').where('oidc_session_id', '=', sessionId).execute()).length,
    reports: (await database.db.selectFrom('posture_responses').select('slot').where('oidc_session_id', '=', sessionId).execute()).length,
  });

  it("removes the client sessions and reports of ended OIDC sessions, and keeps live sessions' whatever their age", async () => {
    const now = clock.now().getTime();
    const expired = await oidcSession(2 * REFRESH_MS, new Date(now - ACCESS_MS - 1_000));
    const noRefreshLongAgo = await oidcSession(ACCESS_MS + 60_000, null);
    // Its refresh token expired, but an access token from its last refresh may still be valid.
    const lastAccessStillValid = await oidcSession(2 * REFRESH_MS, new Date(now - ACCESS_MS + 60_000));
    const noRefreshRecent = await oidcSession(ACCESS_MS - 60_000, null);
    const oldButRefreshed = await oidcSession(10 * REFRESH_MS, new Date(now + REFRESH_MS));
    const revoked = await oidcSession(1_000, new Date(now + REFRESH_MS), true);

    const housekeeping = buildHousekeeping(database, { clock, accessTokenLifetimeMs: ACCESS_MS, sessionTimeoutMs: TIMEOUT_MS });
    const swept = await housekeeping.sweep();

    assert.deepEqual(await left(expired), { clientSessions: 0, reports: 0 });
    assert.deepEqual(await left(noRefreshLongAgo), { clientSessions: 0, reports: 0 });
    assert.deepEqual(await left(revoked), { clientSessions: 0, reports: 0 });
    for (const live of [lastAccessStillValid, noRefreshRecent, oldButRefreshed]) assert.deepEqual(await left(live), { clientSessions: 1, reports: 1 }, live);
    // The revoked session's client sessions went with its revocation already; the sweep counts the other two.
    assert.equal(swept.clientSessions, 2);
    assert.equal((await housekeeping.sweep()).clientSessions, 0, 'a second sweep finds nothing more');

    // Time passes: the session whose last access token was still valid has ended, and so has the recent one
    // without a refresh token; the refreshed one lives on.
    clock.advance(2 * 60_000);
    assert.equal((await housekeeping.sweep()).clientSessions, 2);
    assert.deepEqual(await left(lastAccessStillValid), { clientSessions: 0, reports: 0 });
    assert.deepEqual(await left(noRefreshRecent), { clientSessions: 0, reports: 0 });
    assert.deepEqual(await left(oldButRefreshed), { clientSessions: 1, reports: 1 });
  });

  it('removes expired OIDC authorization requests and keeps the live ones', async () => {
    const oidc = createOidcRepository(database);
    const request = (expiresAt: Date) => ({
      id: newUuid(),
      handle: '',
      clientId: 'svc',
      redirectUri: 'http://127.0.0.1/callback',
      scope: 'openid',
      state: null,
      nonce: null,
      codeChallenge: 'x'.repeat(43),
      method: 'S256' as const,
      issuer: 'https://ctrl.example',
      identityId,
      amr: ['pwd'],
      status: 'authenticated' as const,
      outstanding: [],
      codeExpiresAt: null,
      apiSessionId: newUuid(),
      authTime: clock.now(),
      configTypes: [],
      createdAt: clock.now(),
      expiresAt,
    });
    const stale = request(new Date(clock.now().getTime() - 1_000));
    const live = request(new Date(clock.now().getTime() + 60_000));
    assert.ok(await oidc.insertAuthRequest(stale));
    assert.ok(await oidc.insertAuthRequest(live));
    await buildHousekeeping(database, { clock, accessTokenLifetimeMs: ACCESS_MS, sessionTimeoutMs: TIMEOUT_MS }).sweep();
    assert.equal(await oidc.findAuthRequest(stale.id), undefined);
    assert.equal((await oidc.findAuthRequest(live.id))?.id, live.id);
  });
});
