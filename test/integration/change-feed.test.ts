/**
 * The change feed and the authentication cache it keeps current (issue 17, must-haves 1 and 2; decision 0035), over
 * two handles on one real store, as two controllers have: a change is told at commit to the handle that made it and
 * within the bound to the other; a rolled-back change is told to no one; a reader that fell behind what the log keeps
 * starts afresh; nothing is served from memory while the log cannot be read; on PostgreSQL, a killed notification
 * connection delays nothing past the bound.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { newIdentity, type ApiSession } from '../../src/domain/identity.js';
import { openDatabase, type Database, type DatabaseTarget } from '../../src/persistence/database.js';
import { createApiSessionRepository } from '../../src/persistence/repositories/api-sessions.js';
import { createAuthPolicyRepository } from '../../src/persistence/repositories/auth-policies.js';
import { createCredentialRepository } from '../../src/persistence/repositories/credentials.js';
import { createMfaRepository } from '../../src/persistence/repositories/mfa.js';
import { createSecretBox, newSecretsKeyText, parseSecretsKey } from '../../src/crypto/secret-box.js';
import { createAuthorizationChangeLog, KEPT_CHANGES, recordChange } from '../../src/persistence/repositories/authorization-changes.js';
import { createServiceReachSource } from '../../src/persistence/repositories/service-reach-source.js';
import { createServiceRepository } from '../../src/persistence/repositories/services.js';
import { createPostureCheckRepository } from '../../src/persistence/repositories/posture-checks.js';
import { createPostureResponseRepository } from '../../src/persistence/repositories/posture-responses.js';
import { buildPostureDomain, type PostureResponseInput, type PostureService } from '../../src/services/posture/index.js';
import { createPostureService } from '../../src/services/posture/posture.js';
import { systemClock } from '../../src/shared/clock.js';
import { createIdentityRepository } from '../../src/persistence/repositories/identities.js';
import { createOidcRepository } from '../../src/persistence/repositories/oidc.js';
import { atomically } from '../../src/persistence/unit-of-work.js';
import { createAuthLookups } from '../../src/services/authentication/auth-lookups.js';
import type { AuthContext } from '../../src/services/authentication/request-auth.js';
import { createServiceReach } from '../../src/services/authorization/service-reach.js';
import { startChangeFeed, type ChangeFeed, type FeedEvent } from '../../src/services/change-feed/change-feed.js';
import { buildChangeFeed } from '../../src/services/change-feed/index.js';
import { newEntityId } from '../../src/shared/random.js';
import { newSharedDatabase, testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';

const BOUND_MS = 1_000;
const box = createSecretBox(parseSecretsKey(newSecretsKeyText()));

/** Polls `check` until it holds or the feed's bound (plus a poll) has passed; true when it held. */
async function within(check: () => boolean | Promise<boolean>, ms = BOUND_MS + 500): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe(`change feed and authentication cache (${testDialect})`, () => {
  let shared: { db: string; drop(): Promise<void> };
  let target: DatabaseTarget;
  let a: Database;
  let b: Database;
  const feeds: ChangeFeed[] = [];
  const feedOf = async (database: Database, options: { pollMs?: number; boundMs?: number } = {}) => {
    const feed = await buildChangeFeed(database, { target, log: pino({ level: 'silent' }), ...options });
    feeds.push(feed);
    return feed;
  };
  const told = (feed: ChangeFeed) => {
    const events: FeedEvent[] = [];
    feed.subscribe((event) => events.push(event));
    return events;
  };
  const ids = (events: FeedEvent[]) => events.flatMap((event) => (event.kind === 'changes' ? event.changes.map((change) => change.entityId) : ['<reset>']));

  before(async () => {
    shared = await newSharedDatabase();
    target = testDialect === 'postgres' ? { kind: 'postgres', url: shared.db } : { kind: 'sqlite', path: shared.db };
    a = await openDatabase(target);
    b = await openDatabase(target);
  });
  after(async () => {
    for (const feed of feeds) await feed.close();
    await a.close();
    await b.close();
    await shared.drop();
  });

  it('tells the controller that made a change at commit, and the other within the bound', async () => {
    const [feedA, feedB] = [await feedOf(a), await feedOf(b)];
    const [atA, atB] = [told(feedA), told(feedB)];
    const id = newEntityId();
    await recordChange(a, 'identity', id);
    assert.deepEqual(ids(atA), [id], 'told before the write returns');
    assert.ok(await within(() => ids(atB).includes(id)), 'the other controller learns of it within the bound');
  });

  it('tells no one of a change whose transaction rolled back', async () => {
    const feedA = await feedOf(a);
    const atA = told(feedA);
    const id = newEntityId();
    await assert.rejects(
      atomically(a.db, async (trx) => {
        await recordChange({ ...a, db: trx }, 'identity', id);
        throw new Error('the rest of the change failed');
      }),
      /the rest of the change failed/,
    );
    await feedA.poll();
    await recordChange(a, 'identity', 'after');
    await feedA.poll();
    assert.ok(!ids(atA).includes(id), 'nothing told of the rolled-back change');
    assert.ok(ids(atA).includes('after'), 'and the next change is told as usual (a hole in the numbers is no gap)');
  });

  it('starts a reader afresh when the log no longer holds what it missed', async () => {
    // Reading only when told to (no notifications, no timer within the test), so the reader stays behind.
    const feedB = await startChangeFeed({ log: createAuthorizationChangeLog(b), signal: b.changes, pollMs: 60_000, onError: () => {} });
    feeds.push(feedB);
    const atB = told(feedB);
    await recordChange(a, 'identity', 'missed-1');
    await recordChange(a, 'identity', 'missed-2');
    // As pruning does when a reader is further behind than the log keeps.
    const log = createAuthorizationChangeLog(a);
    const newest = (await log.latest()).seq;
    await a.db.deleteFrom('authorization_changes').where('seq', '<=', newest - 1).execute();
    await feedB.poll();
    assert.deepEqual(ids(atB), ['<reset>']);
  });

  it('follows a burst of changes larger than a read, and keeps the service reach index inside what the log keeps', async () => {
    const feed = await startChangeFeed({ log: createAuthorizationChangeLog(a), signal: a.changes, pollMs: 60_000, onError: () => {} });
    feeds.push(feed);
    const events = told(feed);
    let rebuilds = 0;
    const source = createServiceReachSource(a);
    const reach = createServiceReach({ feed, source: { ...source, services: (ids) => (ids === undefined && rebuilds++, source.services(ids)) } });
    await reach.current();
    assert.equal(rebuilds, 1, 'built once');

    // Logins and logouts fill the log: more than one read's worth, then more than the log keeps (it is pruned).
    const burst = async (count: number) => {
      await atomically(a.db, async (trx) => {
        for (let i = 0; i < count; i++) await recordChange({ ...a, db: trx }, 'api-session', `burst-${i}`);
      });
      await feed.poll();
    };
    await burst(2_500);
    assert.ok(!ids(events).includes('<reset>'), 'a burst is followed, not treated as a gap');
    assert.ok(ids(events).includes('burst-2499'));
    // More than the log keeps, read as it comes: the oldest rows are pruned meanwhile, which is no gap for the reader.
    for (let written = 0; written < KEPT_CHANGES + 500; written += 2_000) await burst(2_000);
    assert.ok(!ids(events).includes('<reset>'));
    const oldest = await a.db.selectFrom('authorization_changes').select((eb) => eb.fn.min('seq').as('seq')).executeTakeFirstOrThrow();
    assert.ok(Number(oldest.seq) > 1, 'the log was pruned');

    const service = newEntityId();
    await createServiceRepository(a).insert({ id: service, name: `burst-${service}`, roleAttributes: [], configs: [], encryptionRequired: true, maxIdleTimeMillis: 0, terminatorStrategy: 'smartrouting', tags: {}, createdAt: new Date(), updatedAt: new Date() });
    const index = await reach.current();
    assert.ok(index.serviceById(service), 'the new service is in the index');
    assert.equal(rebuilds, 1, 'followed change by change, with no rebuild: the other changes moved its mark along');
  });

  it('serves an API session, an identity and an auth policy from memory, and reads the store again after a change', async () => {
    const feedA = await feedOf(a);
    const reads: string[] = [];
    const sessions = createApiSessionRepository(a);
    const identities = createIdentityRepository(a);
    const counted = <T extends object>(name: string, repo: T): T =>
      new Proxy(repo, { get: (target, key) => (typeof (target as any)[key] === 'function' ? (...args: unknown[]) => (reads.push(`${name}.${String(key)}`), (target as any)[key](...args)) : (target as any)[key]) });
    const lookups = createAuthLookups({
      feed: feedA,
      apiSessions: counted('sessions', sessions),
      identities: counted('identities', identities),
      authPolicies: counted('policies', createAuthPolicyRepository(a)),
      oidc: counted('oidc', createOidcRepository(a)),
      credentials: createCredentialRepository(a),
      mfa: createMfaRepository(a, box),
    });
    const now = new Date();
    const identity = await createIdentity(a, { name: `cached-${newEntityId()}` });
    const session: ApiSession = { id: newEntityId(), identityId: identity.id, authMethod: 'password', authenticatorId: '', ipAddress: null, configTypes: [], createdAt: now, lastActivityAt: now, outstanding: [], mfaRequired: false };
    await sessions.insert(session, 'hash-of-token');
    // The identity's creation is logged; once the feed has read it, nothing else changes during the lookups.
    await feedA.poll();

    for (let i = 0; i < 3; i++) {
      assert.equal((await lookups.apiSessions.findByTokenHash('hash-of-token'))?.id, session.id);
      assert.equal((await lookups.identities.findById(identity.id))?.name, identity.name);
      assert.equal((await lookups.authPolicies.findById('default'))?.id, 'default');
    }
    assert.deepEqual(reads, ['sessions.findByTokenHash', 'identities.findById', 'policies.findById'], 'read once, then served from memory');

    reads.length = 0;
    await identities.recordClientInfo(identity.id, { sdkInfo: { type: 'go' } });
    assert.deepEqual((await lookups.identities.findById(identity.id))?.sdkInfo, { type: 'go' }, 'a change is seen by the next lookup');
    assert.equal(await sessions.delete(session.id), true);
    assert.equal(await lookups.apiSessions.findByTokenHash('hash-of-token'), undefined, 'an ended session is gone at once');
    assert.deepEqual(reads, ['identities.findById', 'sessions.findByTokenHash']);
  });

  it("serves a password login's authenticator and TOTP state from memory, and reads them again after a change of either, here and at the other controller", async () => {
    const [feedA, feedB] = [await feedOf(a), await feedOf(b)];
    const reads: string[] = [];
    const credentialsA = createCredentialRepository(a);
    const mfaA = createMfaRepository(a, box);
    const lookupsAt = (feed: ChangeFeed, store: Database, name: string) =>
      createAuthLookups({
        feed,
        apiSessions: createApiSessionRepository(store),
        identities: createIdentityRepository(store),
        authPolicies: createAuthPolicyRepository(store),
        oidc: createOidcRepository(store),
        credentials: { findPassword: (username) => (reads.push(`${name}.findPassword`), createCredentialRepository(store).findPassword(username)) },
        mfa: { isVerified: (id) => (reads.push(`${name}.isVerified`), createMfaRepository(store, box).isVerified(id)) },
      });
    const [atA, atB] = [lookupsAt(feedA, a, 'a'), lookupsAt(feedB, b, 'b')];
    const username = `Login-${newEntityId()}`;
    const identity = await createIdentity(a, { username, password: 'first password' });
    await feedA.poll();
    await feedB.poll();

    const first = await atA.passwords.findPassword(username);
    assert.equal(first?.identityId, identity.id);
    assert.equal((await atA.passwords.findPassword(username.toUpperCase()))?.passwordHash, first?.passwordHash, 'kept under the username key: any case finds it');
    assert.equal(await atA.totp.isVerified(identity.id), false);
    assert.equal(await atA.totp.isVerified(identity.id), false);
    assert.equal(await atA.passwords.findPassword('nobody-has-this-name'), undefined);
    assert.equal(await atA.passwords.findPassword('nobody-has-this-name'), undefined);
    assert.deepEqual(reads, ['a.findPassword', 'a.isVerified', 'a.findPassword', 'a.findPassword'], 'kept once read; an unknown username is never kept');
    await atB.passwords.findPassword(username);
    await atB.totp.isVerified(identity.id);

    // A password set at A: A reads the new hash at once, B within the bound.
    reads.length = 0;
    assert.equal(await credentialsA.updatePassword(first!.authenticatorId, { username, passwordHash: 'second-hash', at: new Date() }), true);
    assert.equal((await atA.passwords.findPassword(username))?.passwordHash, 'second-hash');
    assert.ok(await within(async () => (await atB.passwords.findPassword(username))?.passwordHash === 'second-hash'), 'the other controller reads the new password within the bound');
    // TOTP verified at A: both must ask for it from then on.
    const now = new Date();
    const enrollment = { id: newEntityId(), identityId: identity.id, isVerified: false, secret: 'JBSWY3DPEHPK3PXP', recoveryCodes: [], lastUsedStep: null, failedAttempts: 0, lockedUntil: null, revision: 0, createdAt: now, updatedAt: now };
    await mfaA.insert(enrollment);
    assert.equal(await mfaA.acceptStep(enrollment.id, 1, now, { verify: true }), true);
    assert.equal(await atA.totp.isVerified(identity.id), true, 'verified TOTP is required at once where it was verified');
    assert.ok(await within(() => atB.totp.isVerified(identity.id)), 'and at the other controller within the bound');
    // Removed at B: neither asks for it any more.
    assert.equal(await createMfaRepository(b, box).deleteByIdentity(identity.id), true);
    assert.equal(await atB.totp.isVerified(identity.id), false);
    assert.ok(await within(async () => !(await atA.totp.isVerified(identity.id))));
  });

  it("keeps a session's posture reports in memory, and drops them when another controller stores one", async () => {
    const [feedA, feedB] = [await feedOf(a), await feedOf(b)];
    let reads = 0;
    const responses = createPostureResponseRepository(a);
    const postureA = createPostureService({ responses: { ...responses, slotsOf: (id) => (reads++, responses.slotsOf(id)) }, checks: createPostureCheckRepository(a), clock: systemClock, feed: feedA });
    const postureB = buildPostureDomain(b, { clock: systemClock, feed: feedB });
    const now = new Date();
    const identity = await createIdentity(a, { name: `posture-${newEntityId()}` });
    const session: ApiSession = { id: newEntityId(), identityId: identity.id, authMethod: 'password', authenticatorId: '', ipAddress: null, configTypes: [], createdAt: now, lastActivityAt: now, outstanding: [], mfaRequired: false };
    await createApiSessionRepository(a).insert(session, `hash-${session.id}`);
    await feedA.poll();
    const stored = await createIdentityRepository(a).findById(identity.id);
    const auth: AuthContext = { kind: 'legacy', token: 'not read', session, identity: stored!, expiresAt: new Date(now.getTime() + 60_000), partial: false };
    const woken = async (posture: PostureService) => (await posture.stateOf(auth)).wokenAt !== null;

    assert.equal(await woken(postureA), false);
    assert.equal(await woken(postureA), false);
    assert.equal(reads, 1, 'read once, then served from memory');
    await postureB.submit(auth, [{ typeId: 'ENDPOINT_STATE', woken: true }] as PostureResponseInput[], { bulk: false });
    assert.ok(await within(() => woken(postureA)), 'the report stored at the other controller is seen within the bound');
    assert.equal(reads, 2);
  });

  it('reads the store, not memory, while the change log cannot be read, and does not keep what it read', async () => {
    const lost = await openDatabase(target);
    const feed = await startChangeFeed({ log: createAuthorizationChangeLog(lost), signal: lost.changes, pollMs: 20, boundMs: 200, onError: () => {} });
    feeds.push(feed);
    let loads = 0;
    const lookups = createAuthLookups({
      feed,
      apiSessions: { findByTokenHash: async () => (loads++, undefined), delete: async () => false },
      identities: { findById: async (id) => (loads++, newIdentity({ id, name: id, typeId: 'Default', isAdmin: false, roleAttributes: [], authPolicyId: null, externalId: null, tags: {} }, new Date())) },
      authPolicies: { findById: async () => undefined },
      oidc: { findSession: async () => undefined },
      credentials: { findPassword: async () => undefined },
      mfa: { isVerified: async () => false },
    });
    await lookups.identities.findById('someone');
    await lookups.identities.findById('someone');
    assert.equal(loads, 1, 'kept while the feed is fresh');
    await lost.close();
    assert.ok(await within(() => !feed.fresh()), 'the feed stops being fresh once the log cannot be read for the bound');
    await lookups.identities.findById('someone');
    await lookups.identities.findById('someone');
    assert.equal(loads, 3, 'every lookup goes to the store');
  });

  // PostgreSQL only: SQLite has no notifications (one controller per store); registered on that run alone.
  if (testDialect === 'postgres') it('still tells of changes within the bound when the notification connection is killed', async () => {
    const feedB = await feedOf(b);
    const atB = told(feedB);
    const admin = new pg.Client({ connectionString: (target as { url: string }).url });
    await admin.connect();
    try {
      const killed = await within(async () => {
        const result = await admin.query(`select pg_terminate_backend(pid) as done from pg_stat_activity where datname = current_database() and query ilike 'LISTEN %'`);
        return result.rows.length > 0;
      });
      assert.ok(killed, 'a LISTEN connection was found and ended');
      for (let i = 0; i < 5; i++) {
        const id = `after-kill-${i}`;
        await recordChange(a, 'api-session', id);
        assert.ok(await within(() => ids(atB).includes(id)), `${id} reached the other controller within the bound`);
      }
    } finally {
      await admin.end();
    }
  });
});
