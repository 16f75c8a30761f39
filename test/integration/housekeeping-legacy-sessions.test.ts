/**
 * The housekeeping sweep of dead legacy client state (issue 40, must-have 4; decision 0058): legacy API sessions past
 * their inactivity timeout (and a grace for other controllers' late activity writes; this controller's own activity is
 * written first) go with their client sessions,
 * ephemeral certificates and posture reports, each logged as a change; live ones stay; expired ephemeral certificates
 * go even while their session lives; several sweepers at once remove each row once and fail nothing. Real store,
 * rows written through the repositories, a manual clock started from now.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/persistence/database.js';
import { createSessionCertificateRepository } from '../../src/persistence/repositories/api-session-certificates.js';
import { createApiSessionRepository } from '../../src/persistence/repositories/api-sessions.js';
import { createEdgeSessionRepository } from '../../src/persistence/repositories/edge-sessions.js';
import { createPostureResponseRepository } from '../../src/persistence/repositories/posture-responses.js';
import { buildHousekeeping, LEGACY_SWEEP_GRACE_MS } from '../../src/services/housekeeping/index.js';
import { createSessionActivity } from '../../src/services/sessions/session-activity.js';
import { manualClock } from '../../src/shared/clock.js';
import { newEntityId, newUuid } from '../../src/shared/random.js';
import { openTestDatabase, testDialect } from '../helpers/database.js';
import { createIdentity, createServiceRow } from '../helpers/fixtures.js';

const TIMEOUT_MS = 30 * 60_000;
const ACCESS_MS = 30 * 60_000;
const HOUR = 3_600_000;

describe(`housekeeping sweep of legacy API sessions (${testDialect})`, () => {
  let database: Database;
  const clock = manualClock(new Date());
  let identityId = '';
  let serviceId = '';
  const sweeper = () => buildHousekeeping(database, { clock, accessTokenLifetimeMs: ACCESS_MS, sessionTimeoutMs: TIMEOUT_MS });

  before(async () => {
    database = await openTestDatabase();
    identityId = (await createIdentity(database, { name: 'legacy-swept' })).id;
    serviceId = await createServiceRow(database, 'legacy-swept-service', clock.now());
  });
  after(() => database.close());

  /** A legacy API session last active `idleMs` ago; with `children`, a client session, a posture report and a certificate valid for `certValidMs` more. */
  async function legacySession(idleMs: number, children = true, certValidMs = HOUR): Promise<string> {
    const id = newUuid();
    const lastActivityAt = new Date(clock.now().getTime() - idleMs);
    const createdAt = new Date(lastActivityAt.getTime() - HOUR);
    await createApiSessionRepository(database).insert(
      { id, identityId, authMethod: 'password', authenticatorId: '', ipAddress: null, configTypes: [], createdAt, lastActivityAt, outstanding: [], mfaRequired: false },
      `token-hash-${id}`,
    );
    if (!children) return id;
    await createEdgeSessionRepository(database).open({ id: newEntityId(), apiSessionId: id, apiSessionKind: 'legacy', identityId, serviceId, type: 'Dial', tags: {}, createdAt, updatedAt: createdAt });
    await createPostureResponseRepository(database).put({ kind: 'legacy', id }, [{ slot: 'ENDPOINT_STATE:woken', facts: { typeId: 'ENDPOINT_STATE', event: 'woken' }, receivedAt: createdAt }], ['ENDPOINT_STATE']);
    await certificate(id, certValidMs);
    return id;
  }

  async function certificate(apiSessionId: string, validMs: number): Promise<string> {
    const id = newEntityId();
    const now = clock.now();
    await createSessionCertificateRepository(database).insert({
      id,
      apiSessionId,
      identityId,
      sessionTokenHash: `token-hash-${apiSessionId}`,
      subject: `CN=${identityId}`,
      fingerprint: `fp-${id}`,
      certPem: 'PEM',
      validFrom: new Date(now.getTime() - HOUR),
      validTo: new Date(now.getTime() + validMs),
      createdAt: now,
    });
    return id;
  }

  const count = async (table: 'api_sessions' | 'edge_sessions' | 'posture_responses' | 'api_session_certificates', column: string, value: string) =>
    Number((await (database.db as unknown as Kysely<any>).selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where(column, '=', value).executeTakeFirstOrThrow()).n);
  const left = async (id: string) => ({
    apiSession: await count('api_sessions', 'id', id),
    clientSessions: await count('edge_sessions', 'legacy_session_id', id),
    reports: await count('posture_responses', 'legacy_session_id', id),
    certificates: await count('api_session_certificates', 'legacy_session_id', id),
  });
  const ALL = { apiSession: 1, clientSessions: 1, reports: 1, certificates: 1 };
  const NONE = { apiSession: 0, clientSessions: 0, reports: 0, certificates: 0 };

  it('removes a legacy API session past its timeout and grace with everything on it, and keeps live ones', async () => {
    const dead = await legacySession(TIMEOUT_MS + LEGACY_SWEEP_GRACE_MS + 1_000);
    const withinGrace = await legacySession(TIMEOUT_MS + 1_000);
    const live = await legacySession(TIMEOUT_MS - 60_000);
    const active = await legacySession(0);

    const swept = await sweeper().sweep();

    assert.deepEqual(await left(dead), NONE);
    for (const kept of [withinGrace, live, active]) assert.deepEqual(await left(kept), ALL, kept);
    assert.equal(swept.legacySessions, 1);
    const logged = await database.db.selectFrom('authorization_changes').select('entity_id').where('entity_type', '=', 'api-session').where('entity_id', '=', dead).execute();
    assert.equal(logged.length, 1, 'controllers keeping a copy of the session are told it ended');

    // The grace passes: the session another controller might still have been serving is past it now.
    clock.advance(LEGACY_SWEEP_GRACE_MS);
    assert.equal((await sweeper().sweep()).legacySessions, 1);
    assert.deepEqual(await left(withinGrace), NONE);
    for (const kept of [live, active]) assert.deepEqual(await left(kept), ALL, kept);
  });

  it('keeps a session whose activity another controller wrote after the sweep read it', async () => {
    const revived = await legacySession(TIMEOUT_MS + LEGACY_SWEEP_GRACE_MS + 1_000, false);
    // What a second controller's activity flush does between the sweep's read and its delete: the delete re-checks.
    await createApiSessionRepository(database).touchMany([{ id: revived, at: clock.now() }]);
    await sweeper().sweep();
    assert.equal(await count('api_sessions', 'id', revived), 1);
  });

  it('keeps a session in use here whose activity this controller has not written yet: the sweep writes it first', async () => {
    const inUse = await legacySession(TIMEOUT_MS + LEGACY_SWEEP_GRACE_MS + 1_000, false);
    const activity = createSessionActivity({ apiSessions: createApiSessionRepository(database), flushIntervalMs: HOUR, onError: () => {} });
    activity.seen(inUse, clock.now());
    try {
      await buildHousekeeping(database, { clock, accessTokenLifetimeMs: ACCESS_MS, sessionTimeoutMs: TIMEOUT_MS, activity }).sweep();
    } finally {
      await activity.close();
    }
    assert.equal(await count('api_sessions', 'id', inUse), 1);
  });

  it('clears a backlog larger than one batch in one sweep, and several sweepers at once remove each session once', async () => {
    const backlog: string[] = [];
    for (let index = 0; index < 450; index++) backlog.push(await legacySession(TIMEOUT_MS + LEGACY_SWEEP_GRACE_MS + 1_000 + index, false));
    const keep = await legacySession(0, false);

    const results = await Promise.all([sweeper().sweep(), sweeper().sweep(), sweeper().sweep()]);

    assert.equal(results.reduce((total, result) => total + result.legacySessions, 0), backlog.length, 'every stale session is counted once across the sweepers');
    const remaining = await database.db.selectFrom('api_sessions').select('id').where('id', 'in', backlog).execute();
    assert.deepEqual(remaining, []);
    assert.equal(await count('api_sessions', 'id', keep), 1);
  });

  it('removes expired ephemeral certificates of a live session and keeps its unexpired ones', async () => {
    const live = await legacySession(0, false);
    const expired = await certificate(live, -1_000);
    const valid = await certificate(live, HOUR);
    const swept = await sweeper().sweep();
    assert.equal(swept.certificates, 1);
    assert.equal(await count('api_session_certificates', 'id', expired), 0);
    assert.equal(await count('api_session_certificates', 'id', valid), 1);
    assert.equal(await count('api_sessions', 'id', live), 1);
  });
});
