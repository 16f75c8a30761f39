/**
 * `/api-sessions` of the Management API: an administrator lists an identity's sessions, legacy and OIDC, reads one
 * and revokes it, after which its tokens no longer work (an OIDC session's access token and refresh token alike);
 * nobody else may; no view carries a token; bad input changes nothing; ended or revoked OIDC sessions are not listed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { createOidcRepository } from '../../src/persistence/repositories/oidc.js';
import { newUuid } from '../../src/shared/random.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { managementClient, nonAdminToken, type ManagementClient } from '../helpers/management.js';
import { passwordLoginTokens, postForm } from '../helpers/oidc.js';

describe(`API sessions for administrators (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let userToken: string;
  let userId: string;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    userToken = await nonAdminToken(ctl, 'session-owner');
    userId = (await admin.get(`/identities?filter=${encodeURIComponent('name = "session-owner"')}`)).json().data[0].id;
  });
  after(async () => ctl.close());

  const sessionsOf = async (identityId: string) => {
    const res = await admin.get(`/api-sessions?filter=${encodeURIComponent(`identityId = "${identityId}"`)}`);
    assert.equal(res.status, 200, res.text);
    return res.json();
  };
  const asUser = (token: string) => ctl.fetch('/edge/client/v1/current-identity', { headers: { 'svc-session': token } });

  it("lists one identity's sessions with its name, never a token", async () => {
    const second = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'session-owner', password: 'plain-password' } });
    assert.equal(second.status, 200);
    const { data, meta } = await sessionsOf(userId);
    assert.equal(data.length, 2);
    assert.equal(meta.pagination.totalCount, 2);
    assert.ok(meta.filterableFields.includes('identityId'));
    for (const session of data) {
      assert.equal(session.identityId, userId);
      assert.deepEqual({ id: session.identity.id, name: session.identity.name }, { id: userId, name: 'session-owner' });
      assert.equal(session.authMethod, 'password');
      assert.equal(session.token, '');
      assert.deepEqual(session._links, { self: { href: `./api-sessions/${session.id}` } });
    }
    const all = (await admin.get('/api-sessions?limit=100')).json().data as Array<{ identityId: string }>;
    assert.ok(all.some((s) => s.identityId !== userId), 'the unfiltered list has the admin session too');
    for (const text of admin.seen) {
      assert.ok(!text.includes(userToken), 'no answer carries a session token');
      assert.ok(!text.includes(second.json().data.token));
    }
  });

  it('reads one session and answers 404 naming an unknown id', async () => {
    const [session] = (await sessionsOf(userId)).data;
    const res = await admin.get(`/api-sessions/${session.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.json().data.id, session.id);
    const missing = await admin.get('/api-sessions/no-such-session');
    assert.equal(missing.status, 404);
    assert.equal(missing.json().error.code, 'NOT_FOUND');
    assert.match(missing.json().error.message, /no-such-session/);
  });

  it('revokes a session: its token stops working at once, the others keep working', async () => {
    assert.equal((await asUser(userToken)).status, 200);
    const before = (await sessionsOf(userId)).data as Array<{ id: string }>;
    const other = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'session-owner', password: 'plain-password' } });
    const otherToken = other.json().data.token as string;
    const otherId = other.json().data.id as string;
    const res = await admin.del(`/api-sessions/${otherId}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json(), { data: {}, meta: {} });
    assert.equal((await asUser(otherToken)).status, 401, 'the revoked token is refused');
    assert.equal((await asUser(userToken)).status, 200, 'the other session still works');
    const after = (await sessionsOf(userId)).data as Array<{ id: string }>;
    assert.deepEqual(
      after.map((s) => s.id).sort(),
      before.map((s) => s.id).sort(),
    );
    const again = await admin.del(`/api-sessions/${otherId}`);
    assert.equal(again.status, 404);
  });

  it('refuses anyone but an administrator, changing nothing', async () => {
    const [session] = (await sessionsOf(userId)).data;
    const user = managementClient(ctl, userToken);
    assert.equal((await user.get('/api-sessions')).status, 403);
    assert.equal((await user.get(`/api-sessions/${session.id}`)).status, 403);
    assert.equal((await user.del(`/api-sessions/${session.id}`)).status, 403);
    assert.equal((await managementClient(ctl, undefined).del(`/api-sessions/${session.id}`)).status, 401);
    assert.equal((await admin.get(`/api-sessions/${session.id}`)).status, 200, 'the session is still there');
  });

  it('refuses a filter on an unknown field or a bad page, naming it', async () => {
    const field = await admin.get(`/api-sessions?filter=${encodeURIComponent('token = "x"')}`);
    assert.equal(field.status, 400);
    assert.equal(field.json().error.code, 'INVALID_FILTER');
    assert.match(field.text, /unknown field 'token'/);
    const page = await admin.get('/api-sessions?offset=-x');
    assert.equal(page.status, 400);
    assert.equal(page.json().error.code, 'INVALID_PAGINATION');
  });

  /** An OIDC password login of session-owner through the in-process app: authorize, login, callback, token. */
  async function oidcLogin(): Promise<{ accessToken: string; refreshToken: string; sessionId: string }> {
    const tokens = await passwordLoginTokens(ctl, 'session-owner', 'plain-password');
    return { ...tokens, sessionId: decodeJwt(tokens.accessToken).z_asid as string };
  }
  const asBearer = (accessToken: string) => ctl.fetch('/edge/client/v1/current-identity', { headers: { authorization: `Bearer ${accessToken}` } });
  const refresh = (refreshToken: string) => postForm(ctl, '/oidc/token', { grant_type: 'refresh_token', client_id: 'svc', refresh_token: refreshToken });

  it('lists a live OIDC session beside the legacy ones, with what its login recorded, and filters by kind', async () => {
    const oidc = await oidcLogin();
    const updb = await ctl.running.database.db.selectFrom('authenticators').select('id').where('identity_id', '=', userId).where('method', '=', 'updb').executeTakeFirstOrThrow();
    const { data, meta } = await sessionsOf(userId);
    assert.ok(meta.filterableFields.includes('kind'));
    const listed = data.find((session: { id: string }) => session.id === oidc.sessionId);
    assert.ok(listed, 'the OIDC session is listed');
    assert.equal(listed.kind, 'oidc');
    assert.deepEqual([listed.identityId, listed.identity.name, listed.authMethod, listed.authenticatorId], [userId, 'session-owner', 'password', updb.id]);
    assert.equal(listed.ipAddress, '127.0.0.1');
    assert.deepEqual([listed.isMfaRequired, listed.isMfaComplete, listed.isCertExtendable, listed.token], [false, false, false, '']);
    assert.deepEqual(listed.authQueries, []);
    assert.ok(Date.parse(listed.lastActivityAt) >= Date.parse(listed.createdAt));
    for (const session of data.filter((s: { id: string }) => s.id !== oidc.sessionId)) {
      assert.equal(session.kind, 'legacy');
      assert.match(session.id, /^[A-Za-z0-9]{16}$/, 'legacy ids never have the form of an OIDC session id');
    }
    assert.match(oidc.sessionId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    const onlyOidc = await admin.get(`/api-sessions?filter=${encodeURIComponent(`identityId = "${userId}" and kind = "oidc"`)}`);
    assert.equal(onlyOidc.status, 200, onlyOidc.text);
    assert.deepEqual(onlyOidc.json().data.map((s: { id: string }) => s.id), [oidc.sessionId]);
    assert.equal(onlyOidc.json().meta.pagination.totalCount, 1);
    // One filter and sort over both kinds: a boolean, a time and the method.
    const sorted = await admin.get(`/api-sessions?filter=${encodeURIComponent(`identityId = "${userId}" and isMfaRequired = false and authMethod = "password"`)}&sort=${encodeURIComponent('lastActivityAt desc')}`);
    assert.equal(sorted.status, 200, sorted.text);
    const times = sorted.json().data.map((s: { lastActivityAt: string }) => Date.parse(s.lastActivityAt));
    assert.equal(times.length, data.length);
    assert.deepEqual(times, [...times].sort((a: number, b: number) => b - a));
    const detail = await admin.get(`/api-sessions/${oidc.sessionId}`);
    assert.equal(detail.status, 200, detail.text);
    assert.equal(detail.json().data.kind, 'oidc');
    for (const text of admin.seen) assert.ok(!text.includes(oidc.accessToken) && !text.includes(oidc.refreshToken), 'no answer carries a token');
  });

  it("revokes an OIDC session: its access token is refused at once and its refresh token is invalid_grant; the user's other sessions keep working", async () => {
    const target = await oidcLogin();
    const other = await oidcLogin();
    assert.equal((await asBearer(target.accessToken)).status, 200);
    const user = managementClient(ctl, userToken);
    assert.equal((await user.del(`/api-sessions/${target.sessionId}`)).status, 403, 'only an administrator may');
    assert.equal((await asBearer(target.accessToken)).status, 200, 'a refused request changes nothing');

    const res = await admin.del(`/api-sessions/${target.sessionId}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json(), { data: {}, meta: {} });
    const refused = await asBearer(target.accessToken);
    assert.equal(refused.status, 401, 'the access token is refused on the next request');
    const renewed = await refresh(target.refreshToken);
    assert.equal(renewed.status, 400);
    assert.equal(renewed.json().error, 'invalid_grant');
    assert.equal((await asBearer(other.accessToken)).status, 200, "the identity's other OIDC session still works");
    assert.equal((await asUser(userToken)).status, 200, 'and its legacy session');
    assert.equal((await refresh(other.refreshToken)).status, 200);

    assert.equal((await admin.get(`/api-sessions/${target.sessionId}`)).status, 404, 'a revoked session is no longer listed');
    assert.equal((await admin.del(`/api-sessions/${target.sessionId}`)).status, 404);
    assert.ok(!(await sessionsOf(userId)).data.some((s: { id: string }) => s.id === target.sessionId));
  });

  it('does not list OIDC sessions whose tokens have all expired, nor revoked ones; unknown ids are 404 naming them', async () => {
    const oidc = createOidcRepository(ctl.running.database);
    const longAgo = new Date(Date.now() - 6 * 3_600_000);
    const base = { identityId: userId, clientId: 'svc', issuer: `${ctl.baseUrl}/oidc`, scope: 'openid', amr: ['password'], configTypes: [], authenticatorId: null, ipAddress: null };
    const expired = newUuid();
    await oidc.insertSession({ ...base, id: expired, authTime: longAgo, revokedAt: null, createdAt: longAgo });
    const revoked = newUuid();
    await oidc.insertSession({ ...base, id: revoked, authTime: new Date(), revokedAt: new Date(), createdAt: new Date() });
    for (const id of [expired, revoked, newUuid()]) {
      const read = await admin.get(`/api-sessions/${id}`);
      assert.equal(read.status, 404, id);
      assert.equal(read.json().error.code, 'NOT_FOUND');
      assert.match(read.json().error.message, new RegExp(id));
      assert.equal((await admin.del(`/api-sessions/${id}`)).status, 404);
    }
    const all = (await admin.get('/api-sessions?limit=100')).json().data as Array<{ id: string }>;
    assert.ok(!all.some((s) => s.id === expired || s.id === revoked));
    const row = await ctl.running.database.db.selectFrom('oidc_sessions').select('revoked_at').where('id', '=', expired).executeTakeFirstOrThrow();
    assert.equal(row.revoked_at, null, 'a refused DELETE changes nothing');
  });
});
