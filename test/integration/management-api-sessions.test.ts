/**
 * `/api-sessions` of the Management API: an administrator lists an identity's sessions, reads one and revokes it, after
 * which its token no longer works; nobody else may; no view carries a token; bad input changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { managementClient, nonAdminToken, type ManagementClient } from '../helpers/management.js';

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
});
