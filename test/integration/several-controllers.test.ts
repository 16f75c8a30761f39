/**
 * Two real controller processes on one PostgreSQL (issue 17, must-haves 3 and 4; decision 0034): a login at one is
 * served by the other, with legacy sessions and with OIDC tokens either of them signed; a logout or revocation at one
 * is refused at the other within the 1 s bound; lockout counts span both; a refresh token presented at both at once
 * is honoured once and the family then behaves as at one controller; a controller killed with SIGKILL loses nothing
 * it acknowledged, the other keeps serving and lists it offline, and it catches up when it comes back.
 *
 * PostgreSQL only (SQLite is one controller's store): on the SQLite run nothing is registered, so nothing is
 * reported skipped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import * as client from 'openid-client';
import { openDatabase, type Database } from '../../src/persistence/database.js';
import { createIdentityRepository } from '../../src/persistence/repositories/identities.js';
import { ensureDefaultAdmin } from '../../src/services/identities/default-admin.js';
import { systemClock } from '../../src/shared/clock.js';
import type { TestController } from '../helpers/controller.js';
import { createSharedPki, startControllerProcess, type ControllerProcess, type SharedPki } from '../helpers/controller-processes.js';
import { newSharedDatabase, testDialect } from '../helpers/database.js';
import { createAuthPolicy, createIdentity } from '../helpers/fixtures.js';
import type { TestResponse } from '../helpers/https.js';
import { discoverClient, loginToCallback } from '../helpers/oidc.js';

/** The spec's bound from a commit at one controller to its effect at every other. */
const PROPAGATION_BOUND_MS = 1_000;

/**
 * Probes until `done` holds or `withinMs` has passed since the call, and returns the last answer (the caller asserts
 * on it). A probe started before the deadline counts, whenever it answers.
 */
async function eventually(probe: () => Promise<TestResponse>, done: (res: TestResponse) => boolean, withinMs: number): Promise<TestResponse> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const startedAt = Date.now();
    const res = await probe();
    if (done(res) || startedAt >= deadline) return res;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The OIDC test helpers take a TestController; they use only its baseUrl, ca and fetch, which a process has too. */
const oidcTarget = (ctl: ControllerProcess) => ctl as unknown as TestController;

if (testDialect === 'postgres') {
  describe('two controller processes on one PostgreSQL', () => {
    let shared: { db: string; drop(): Promise<void> };
    let database: Database;
    let pki: SharedPki;
    let a: ControllerProcess;
    let b: ControllerProcess;
    let lockoutPolicy: string;
    let carol: { id: string };

    before(async () => {
      shared = await newSharedDatabase();
      database = await openDatabase({ kind: 'postgres', url: shared.db });
      await ensureDefaultAdmin({ identities: createIdentityRepository(database), clock: systemClock }, { username: 'admin', password: 'admin-password' });
      await createIdentity(database, { name: 'alice', password: 'alice-password' });
      carol = await createIdentity(database, { name: 'carol', password: 'carol-password' });
      lockoutPolicy = await createAuthPolicy(database, (body) => Object.assign(body.primary.updb, { maxAttempts: 3, lockoutDurationMinutes: 5 }));
      pki = await createSharedPki();
      a = await startControllerProcess({ pki, name: 'a', db: shared.db });
      b = await startControllerProcess({ pki, name: 'b', db: shared.db });
    });
    after(async () => {
      await a?.stop('SIGKILL');
      await b?.stop('SIGKILL');
      await database?.close();
      await shared?.drop();
      pki?.remove();
    });

    const login = (ctl: ControllerProcess, username: string, password: string) =>
      ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username, password } });
    const sessionToken = async (ctl: ControllerProcess, username: string, password: string) => {
      const res = await login(ctl, username, password);
      assert.equal(res.status, 200, res.text);
      return res.json().data.token as string;
    };
    const withSession = (token: string) => ({ headers: { 'svc-session': token } });
    const withBearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
    const currentIdentity = (ctl: ControllerProcess, options: { headers: Record<string, string> }) => ctl.fetch('/edge/client/v1/current-identity', options);
    const tokenRequest = (ctl: ControllerProcess, fields: Record<string, string>) =>
      ctl.fetch('/oidc/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
    async function oidcLogin(ctl: ControllerProcess, username: string, password: string) {
      const config = await discoverClient(oidcTarget(ctl));
      const started = await loginToCallback(oidcTarget(ctl), config, username, password);
      return client.authorizationCodeGrant(config, started.callback, { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce });
    }

    it('serves a legacy session made at A on B, and refuses it at B within the bound once A logs it out', async () => {
      const token = await sessionToken(a, 'alice', 'alice-password');
      assert.equal((await currentIdentity(b, withSession(token))).status, 200);
      const logout = await a.fetch('/edge/client/v1/current-api-session', { method: 'DELETE', ...withSession(token) });
      assert.equal(logout.status, 200, logout.text);
      const refused = await eventually(() => currentIdentity(b, withSession(token)), (res) => res.status === 401, PROPAGATION_BOUND_MS);
      assert.equal(refused.status, 401);
    });

    it("accepts at each controller the access tokens the other signed, and publishes both controllers' keys", async () => {
      const fromA = await oidcLogin(a, 'alice', 'alice-password');
      const fromB = await oidcLogin(b, 'alice', 'alice-password');
      const [kidA, kidB] = [decodeProtectedHeader(fromA.access_token).kid, decodeProtectedHeader(fromB.access_token).kid];
      assert.notEqual(kidA, kidB, 'each controller signs with its own key');
      const atB = await currentIdentity(b, withBearer(fromA.access_token));
      assert.equal(atB.status, 200, atB.text);
      assert.equal(atB.json().data.name, 'alice');
      assert.equal((await currentIdentity(a, withBearer(fromB.access_token))).status, 200);
      for (const ctl of [a, b]) {
        const kids = (await ctl.fetch('/oidc/keys')).json().keys.map((key: { kid: string }) => key.kid);
        assert.ok(kids.includes(kidA) && kids.includes(kidB), `${ctl.name} publishes both keys: ${kids}`);
      }
    });

    it('refuses at B, within the bound, an access token whose session was revoked at A', async () => {
      const tokens = await oidcLogin(a, 'alice', 'alice-password');
      assert.equal((await currentIdentity(b, withBearer(tokens.access_token))).status, 200);
      const revoked = await a.fetch('/oidc/revoke', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: tokens.refresh_token as string, client_id: 'svc' }).toString(),
      });
      assert.equal(revoked.status, 200, revoked.text);
      const refused = await eventually(() => currentIdentity(b, withBearer(tokens.access_token)), (res) => res.status === 401, PROPAGATION_BOUND_MS);
      assert.equal(refused.status, 401);
    });

    it('refuses at B, within the bound, the logins of an identity disabled at A, and takes them again once A enables it', async () => {
      // A login at B first, so B holds carol in memory: logins read identities as requests do, from the feed's copy.
      await sessionToken(b, 'carol', 'carol-password');
      const admin = withSession(await sessionToken(a, 'admin', 'admin-password'));
      const disabled = await a.fetch(`/edge/management/v1/identities/${carol.id}/disable`, { method: 'POST', body: { durationMinutes: 0 }, ...admin });
      assert.equal(disabled.status, 200, disabled.text);
      const refused = await eventually(() => login(b, 'carol', 'carol-password'), (res) => res.status === 401, PROPAGATION_BOUND_MS);
      assert.equal(refused.status, 401, refused.text);
      await assert.rejects(oidcLogin(b, 'carol', 'carol-password'), 'an OIDC login at B is refused too');
      const enabled = await a.fetch(`/edge/management/v1/identities/${carol.id}/enable`, { method: 'POST', ...admin });
      assert.equal(enabled.status, 200, enabled.text);
      const back = await eventually(() => login(b, 'carol', 'carol-password'), (res) => res.status === 200, PROPAGATION_BOUND_MS);
      assert.equal(back.status, 200, back.text);
    });

    it('honours a refresh token presented at A and B at once exactly once, and the family then behaves as at one controller', async () => {
      const tokens = await oidcLogin(a, 'alice', 'alice-password');
      const sessionId = decodeJwt(tokens.access_token).z_asid as string;
      const refresh = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string, client_id: 'svc' };
      const answers = await Promise.all([tokenRequest(a, refresh), tokenRequest(b, refresh), tokenRequest(a, refresh), tokenRequest(b, refresh)]);
      const honoured = answers.filter((res) => res.status === 200);
      assert.ok(honoured.length >= 1, answers.map((res) => res.text).join('\n'));
      const successors = new Set(honoured.map((res) => res.json().refresh_token as string));
      assert.equal(successors.size, 1, 'one rotation: every honoured answer carries the same successor (the grace of decision 0012)');
      const stored = await database.db.selectFrom('oidc_refresh_tokens').select('status').where('session_id', '=', sessionId).execute();
      assert.deepEqual(stored.map((row) => row.status).sort(), ['active', 'rotated'], 'one successor stored, the presented token rotated');
      const [successor] = [...successors] as [string];
      // The loser revoked nothing: the session and its newest token are live at both.
      assert.equal((await currentIdentity(b, withBearer(honoured[0]!.json().access_token))).status, 200);
      const next = await tokenRequest(b, { ...refresh, refresh_token: successor });
      assert.equal(next.status, 200, next.text);
      // The first token again, now that its successor was used, is reuse (RFC 9700 §4.14.2): the family is revoked.
      const reuse = await tokenRequest(a, refresh);
      assert.equal(reuse.status, 400);
      assert.equal(reuse.json().error, 'invalid_grant');
      assert.equal((await tokenRequest(b, { ...refresh, refresh_token: next.json().refresh_token })).status, 400, 'the newest token of the family is refused too');
      const refused = await eventually(() => currentIdentity(b, withBearer(next.json().access_token)), (res) => res.status === 401, PROPAGATION_BOUND_MS);
      assert.equal(refused.status, 401);
    });

    it('counts password guesses at both controllers against one lockout', async () => {
      await createIdentity(database, { name: 'mallory-target', password: 'right-password', authPolicyId: lockoutPolicy });
      for (const ctl of [a, b, a]) assert.equal((await login(ctl, 'mallory-target', 'wrong-password')).status, 401);
      const atB = await login(b, 'mallory-target', 'right-password');
      assert.equal(atB.status, 401, 'the third guess, at A, locked the identity out at B as well');
      assert.equal((await login(a, 'mallory-target', 'right-password')).status, 401);
    });

    it('lists both controllers with their API addresses, each answering with its own instance id', async () => {
      const token = await sessionToken(b, 'admin', 'admin-password');
      const res = await b.fetch('/edge/client/v1/controllers', withSession(token));
      assert.equal(res.status, 200, res.text);
      const listed = res.json().data as Array<{ name: string; isOnline: boolean; apiAddresses: Record<string, Array<{ url: string }>> }>;
      const byName = new Map(listed.map((c) => [c.name, c]));
      for (const ctl of [a, b]) {
        const entry = byName.get(`CN=svc-controller-${ctl.name}, O=svc`) ?? listed.find((c) => c.name.includes(`svc-controller-${ctl.name}`));
        assert.ok(entry, `controller ${ctl.name} is listed: ${listed.map((c) => c.name)}`);
        assert.equal(entry.isOnline, true);
        assert.deepEqual(entry.apiAddresses['edge-client']?.map((address) => address.url), [`${ctl.baseUrl}/edge/client/v1`]);
      }
      const [idA, idB] = [(await a.fetch('/edge/client/v1/version')).headers['svc-instance-id'], (await b.fetch('/edge/client/v1/version')).headers['svc-instance-id']];
      assert.ok(idA && idB);
      assert.notEqual(idA, idB);
    });

    it('loses nothing A acknowledged when A is killed mid-work; B keeps serving, lists A offline, and A catches up on restart', async () => {
      const admin = await sessionToken(b, 'admin', 'admin-password');
      // Enrollments created at B, redeemed at A while logins run there too.
      const enrollments = await Promise.all(
        Array.from({ length: 6 }, async (_, i) => {
          const identity = await createIdentity(database, { name: `enrollee-${i}` });
          const created = await b.fetch('/edge/management/v1/enrollments', {
            method: 'POST',
            ...withSession(admin),
            body: { identityId: identity.id, method: 'updb', username: `enrollee-${i}`, expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
          });
          assert.equal(created.status, 201, created.text);
          const detail = await b.fetch(`/edge/management/v1/enrollments/${created.json().data.id}`, withSession(admin));
          return { username: `enrollee-${i}`, token: detail.json().data.token as string };
        }),
      );
      const settled = (promise: Promise<TestResponse>) => promise.then((res) => res, () => undefined);
      const enrolling = enrollments.map((e) =>
        settled(a.fetch(`/edge/client/v1/enroll/updb?token=${e.token}`, { method: 'POST', body: { password: `${e.username}-password` } })).then((res) => ({ ...e, res })),
      );
      const loggingIn = Array.from({ length: 6 }, () => settled(login(a, 'alice', 'alice-password')));
      // Kill A as soon as it has acknowledged something, with the rest still in flight.
      await Promise.race([...enrolling, ...loggingIn]);
      await a.stop('SIGKILL');
      const enrolled = (await Promise.all(enrolling)).filter((e) => e.res !== undefined && e.res.status >= 200 && e.res.status < 300);
      const sessions = (await Promise.all(loggingIn)).filter((res): res is TestResponse => res !== undefined && res.status === 200);
      assert.ok(enrolled.length + sessions.length >= 1, 'A acknowledged something before it died');

      for (const e of enrolled) assert.equal((await login(b, e.username, `${e.username}-password`)).status, 200, `${e.username} enrolled at A logs in at B`);
      for (const res of sessions) assert.equal((await currentIdentity(b, withSession(res.json().data.token))).status, 200, 'a session A acknowledged works at B');
      const atB = await sessionToken(b, 'alice', 'alice-password');
      assert.equal((await currentIdentity(b, withSession(atB))).status, 200, 'B keeps serving');

      // A reads offline once its heartbeat is older than the bound (decision 0034: three 5 s intervals).
      const offline = await eventually(
        () => b.fetch('/edge/client/v1/controllers', withSession(admin)),
        (res) => res.json().data.some((c: { name: string; isOnline: boolean }) => c.name.includes('svc-controller-a') && !c.isOnline),
        60_000,
      );
      assert.ok(offline.json().data.some((c: { name: string; isOnline: boolean }) => c.name.includes('svc-controller-a') && !c.isOnline), offline.text);

      await a.restart();
      assert.equal((await currentIdentity(a, withSession(atB))).status, 200, 'the restarted A serves a session made at B while it was down');
      const listed = (await a.fetch('/edge/client/v1/controllers', withSession(admin))).json().data as Array<{ name: string; isOnline: boolean }>;
      assert.ok(listed.filter((c) => c.name.includes('svc-controller-')).every((c) => c.isOnline), 'both online again');
    });
  });
}
