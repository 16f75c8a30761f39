/**
 * Sessions on the client API and what a client reads about a service (issue 15, items 2 and 3; decision 0031), for a
 * legacy session and an OIDC access token alike: a session opens only for a service the caller sees, through a
 * policy of its type whose posture passes, with a router both router policies name; its token verifies with the
 * controller's JWKS and names the session, service, type, identity and API session; it belongs to its API session
 * (others get 404), ends with it (logout, revocation, the identity's or service's delete) and when a policy change
 * removes its right; `GET /services/{id}/edge-routers` lists the shared routers and checks a `session-token` header;
 * `GET /services/{id}/terminators` lists the service's terminators. Every bad input is a 4xx that changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { createEdgeSessionRepository } from '../../src/persistence/repositories/edge-sessions.js';
import { manualClock } from '../../src/shared/clock.js';
import { httpsOrigin } from '../../src/services/controllers/version.js';
import { routerHello } from '../helpers/router-hello.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { storedBool, testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { passwordLoginTokens, postForm } from '../helpers/oidc.js';
import { BASE_ENTITY, ENVELOPE, LIST_ENVELOPE, listShapeProblems, shapeProblems, type Shape } from '../helpers/shapes.js';

const CLIENT = '/edge/client/v1';
type Headers = Record<string, string>;
type Caller = { headers: Headers; apiSessionId: string; identityId: string; refreshToken?: string };

/** The reference's sessionDetail (required fields), and its sessionEdgeRouter (commonEdgeRouterProperties + urls). */
const SESSION_DETAIL: Shape = {
  ...BASE_ENTITY,
  type: 'string',
  apiSessionId: 'string',
  'apiSession.id': 'string',
  serviceId: 'string',
  'service.id': 'string',
  'service.name': 'string',
  token: 'string',
  edgeRouters: 'array',
  identityId: 'string',
};
const SESSION_EDGE_ROUTER: Shape = {
  hostname: 'string',
  name: 'string',
  supportedProtocols: 'object',
  syncStatus: 'string',
  isOnline: 'boolean',
  cost: 'integer',
  noTraversal: 'boolean',
  disabled: 'boolean',
  urls: 'object',
};

describe(`client API sessions and a service's edge routers (${testDialect})`, () => {
  const clock = manualClock(new Date());
  let ctl: TestController;
  let admin: ManagementClient;
  const services: Record<string, string> = {};
  const routers: Record<string, string> = {};
  const policies: Record<string, string> = {};
  const identityIds: Record<string, string> = {};
  let domainCheck = '';

  before(async () => {
    ctl = await startTestController({ clock, inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    for (const name of ['web', 'db', 'hosted', 'guarded', 'lonely', 'hidden', 'doomed']) services[name] = await createdId(admin, '/services', { name });
    for (const [name, roleAttributes] of [['r-1', ['eu']], ['r-2', ['eu']], ['r-other', ['us']]] as const) {
      routers[name] = await createdId(admin, '/edge-routers', { name, roleAttributes });
    }
    // r-1's control channel is up, as the control plane reports it (decision 0064).
    await ctl.running.routerPresence.connected(routers['r-1']!, routerHello('r-1.example', ['tls:r-1.example:3022']));
    for (const name of ['alice', 'bob', 'carol']) {
      identityIds[name] = (await createIdentity(ctl.running.database, { name, username: `${name}-user`, password: `${name}-password` })).id;
    }
    for (const name of ['alice', 'bob']) assert.equal((await admin.patch(`/identities/${identityIds[name]}`, { roleAttributes: ['staff'] })).status, 200);
    domainCheck = await createdId(admin, '/posture-checks', { name: 'corp-domain', typeId: 'DOMAIN', domains: ['corp.example'] });
    const at = (...names: string[]) => names.map((name) => `@${services[name]}`);
    policies.dial = await createdId(admin, '/service-policies', { name: 'staff-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#staff'], serviceRoles: at('web', 'db', 'lonely', 'doomed') });
    policies.bind = await createdId(admin, '/service-policies', { name: 'staff-bind', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#staff'], serviceRoles: at('hosted') });
    policies.guarded = await createdId(admin, '/service-policies', {
      name: 'staff-guarded',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: ['#staff'],
      serviceRoles: at('guarded'),
      postureCheckRoles: [`@${domainCheck}`],
    });
    await createdId(admin, '/edge-router-policies', { name: 'staff-eu', semantic: 'AnyOf', identityRoles: ['#staff'], edgeRouterRoles: ['#eu'] });
    await createdId(admin, '/service-edge-router-policies', {
      name: 'services-eu',
      semantic: 'AnyOf',
      serviceRoles: at('web', 'db', 'hosted', 'guarded', 'hidden', 'doomed'),
      edgeRouterRoles: ['#eu'],
    });
  });
  after(async () => ctl.close());

  const db = () => ctl.running.database.db;
  const rowCount = async () => Number((await db().selectFrom('edge_sessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const send = (caller: Caller, method: string, path: string, options: { body?: unknown; headers?: Headers } = {}) =>
    ctl.fetch(`${CLIENT}${path}`, { method, headers: { ...caller.headers, ...options.headers }, ...(options.body === undefined ? {} : { body: options.body as object }) });
  const open = (caller: Caller, body: unknown) => send(caller, 'POST', '/sessions', { body });

  async function legacy(name: string): Promise<Caller> {
    const res = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: `${name}-user`, password: `${name}-password` } });
    assert.equal(res.status, 200, res.text);
    return { headers: { 'svc-session': res.json().data.token }, apiSessionId: res.json().data.id, identityId: identityIds[name]! };
  }

  /** An OIDC login through the in-process app: authorize, login, callback, token. */
  async function oidc(name: string): Promise<Caller> {
    const { accessToken, refreshToken } = await passwordLoginTokens(ctl, `${name}-user`, `${name}-password`);
    return { headers: { authorization: `Bearer ${accessToken}` }, apiSessionId: decodeJwt(accessToken).z_asid as string, identityId: identityIds[name]!, refreshToken };
  }

  /** The session's token checked as a router would: with the controller's published keys only. */
  async function verifiedClaims(token: string) {
    const keys = await ctl.fetch('/oidc/keys');
    assert.equal(keys.status, 200);
    const edge = ctl.running.services.config.edge!;
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(keys.json()), {
      issuer: httpsOrigin(edge.api.address),
      audience: 'svc-edge-router',
      typ: 'service-session+jwt',
      currentDate: clock.now(),
    });
    return { payload, protectedHeader };
  }

  for (const kind of ['legacy', 'oidc'] as const) {
    describe(`with ${kind === 'legacy' ? 'a legacy session' : 'an OIDC access token'}`, () => {
      const login = (name: string) => (kind === 'legacy' ? legacy(name) : oidc(name));

      it('opens a Dial session with the reference fields, the shared routers and a token the JWKS verifies', async () => {
        const alice = await login('alice');
        const res = await open(alice, { serviceId: services.web, type: 'Dial', tags: { purpose: 'test' } });
        assert.equal(res.status, 201, res.text);
        const session = res.json().data;
        assert.deepEqual([...shapeProblems(res.json(), ENVELOPE), ...shapeProblems(session, SESSION_DETAIL), ...listShapeProblems(session.edgeRouters, SESSION_EDGE_ROUTER)], []);
        assert.deepEqual(
          { type: session.type, serviceId: session.serviceId, service: session.service.name, apiSessionId: session.apiSessionId, apiSession: session.apiSession.id, identityId: session.identityId, tags: session.tags },
          { type: 'Dial', serviceId: services.web, service: 'web', apiSessionId: alice.apiSessionId, apiSession: alice.apiSessionId, identityId: alice.identityId, tags: { purpose: 'test' } },
        );
        assert.deepEqual(session._links, { self: { href: `./sessions/${session.id}` } });
        assert.deepEqual(session.edgeRouters.map((router: { name: string }) => router.name), ['r-1', 'r-2']);
        const [first] = session.edgeRouters;
        assert.deepEqual(
          { ...first },
          {
            id: routers['r-1'],
            name: 'r-1',
            hostname: 'r-1.example',
            isOnline: true,
            supportedProtocols: { tls: 'tls://r-1.example:3022' },
            urls: { tls: 'tls://r-1.example:3022' },
            syncStatus: 'SYNC_DONE',
            cost: 0,
            noTraversal: false,
            disabled: false,
          },
        );
        const { payload, protectedHeader } = await verifiedClaims(session.token);
        assert.deepEqual(
          { jti: payload.jti, sub: payload.sub, z_t: payload.z_t, z_st: payload.z_st, z_iid: payload.z_iid, z_asid: payload.z_asid, z_leg: payload.z_leg },
          { jti: session.id, sub: services.web, z_t: 's', z_st: 'Dial', z_iid: alice.identityId, z_asid: alice.apiSessionId, z_leg: kind === 'legacy' },
        );
        assert.equal(protectedHeader.alg !== 'none' && typeof protectedHeader.kid === 'string', true);
        assert.equal(payload.exp, Math.floor(clock.now().getTime() / 1000) + 30 * 60);
      });

      it('answers the open session again for the same service and type, and opens Bind where a Bind policy grants it', async () => {
        const alice = await login('alice');
        const first = await open(alice, { serviceId: services.web });
        const again = await open(alice, { serviceId: services.web, type: 'Dial' });
        assert.deepEqual([first.status, again.status, first.json().data.type], [201, 201, 'Dial']);
        assert.equal(again.json().data.id, first.json().data.id);
        const bind = await open(alice, { serviceId: services.hosted, type: 'Bind' });
        assert.deepEqual([bind.status, bind.json().data.type], [201, 'Bind'], bind.text);
        assert.equal((await verifiedClaims(bind.json().data.token)).payload.z_st, 'Bind');
      });

      it('refuses a type no policy grants with 403 naming the type, and stores nothing', async () => {
        const alice = await login('alice');
        const before = await rowCount();
        for (const [serviceId, type] of [[services.web, 'Bind'], [services.hosted, 'Dial']] as const) {
          const res = await open(alice, { serviceId, type });
          assert.equal(res.status, 403, res.text);
          assert.equal(res.json().error.code, 'FORBIDDEN');
          assert.equal(res.json().error.cause.field, 'type');
          assert.doesNotMatch(res.text, new RegExp(`${policies.dial}|${policies.bind}|staff-`));
        }
        assert.equal(await rowCount(), before);
      });

      it('answers 404 alike for an unknown service, one no policy gives the caller, and any service to an identity without policies', async () => {
        const alice = await login('alice');
        const carol = await login('carol');
        const before = await rowCount();
        for (const [caller, serviceId] of [[alice, 'no-such-service'], [alice, services.hidden], [carol, services.web]] as const) {
          const res = await open(caller, { serviceId, type: 'Dial' });
          assert.equal(res.status, 404, res.text);
          assert.equal(res.json().error.message, `No service the caller may see has the id '${serviceId}'`);
        }
        assert.equal(await rowCount(), before);
      });

      it('refuses a service no router serves for both sides with 400 NO_EDGE_ROUTERS_AVAILABLE', async () => {
        const alice = await login('alice');
        const before = await rowCount();
        const res = await open(alice, { serviceId: services.lonely, type: 'Dial' });
        assert.deepEqual([res.status, res.json().error.code], [400, 'NO_EDGE_ROUTERS_AVAILABLE'], res.text);
        assert.equal(await rowCount(), before);
      });

      it('refuses while the posture checks fail, naming the failing check, and opens once the API session passes them', async () => {
        const alice = await login('alice');
        const before = await rowCount();
        const refused = await open(alice, { serviceId: services.guarded, type: 'Dial' });
        assert.equal(refused.status, 403, refused.text);
        assert.deepEqual(refused.json().error.cause.postureChecks, [{ id: domainCheck, queryType: 'DOMAIN' }]);
        assert.equal(await rowCount(), before);
        const posted = await send(alice, 'POST', '/posture-response', { body: { id: domainCheck, typeId: 'DOMAIN', domain: 'Corp.Example' } });
        assert.equal(posted.status, 201, posted.text);
        assert.equal((await open(alice, { serviceId: services.guarded, type: 'Dial' })).status, 201);
        // The posture belongs to that API session: another one of the same identity is still refused.
        assert.equal((await open(await login('alice'), { serviceId: services.guarded, type: 'Dial' })).status, 403);
      });

      it('refuses malformed bodies with 400 and stores nothing', async () => {
        const alice = await login('alice');
        const before = await rowCount();
        for (const body of [
          { serviceId: services.web, type: 'Invalid' },
          { serviceId: services.web, type: 'dial' },
          { serviceId: services.web, type: 7 },
          { type: 'Dial' },
          { serviceId: '', type: 'Dial' },
          { serviceId: services.web, type: 'Dial', tags: { nested: { no: 1 } } },
          { serviceId: services.web, type: 'Dial', extra: true },
          [services.web],
        ]) {
          const res = await open(alice, body);
          assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
          assert.ok(res.json().error.code, res.text);
        }
        assert.equal(await rowCount(), before);
      });

      it("lists, reads and ends only the caller's API session's sessions", async () => {
        const alice = await login('alice');
        const otherAlice = await login('alice');
        const bob = await login('bob');
        const web = (await open(alice, { serviceId: services.web, type: 'Dial' })).json().data;
        const hosted = (await open(alice, { serviceId: services.hosted, type: 'Bind' })).json().data;
        const bobs = (await open(bob, { serviceId: services.web, type: 'Dial' })).json().data;
        const list = await send(alice, 'GET', '/sessions?sort=type');
        assert.equal(list.status, 200, list.text);
        assert.deepEqual([...shapeProblems(list.json(), LIST_ENVELOPE), ...listShapeProblems(list.json().data, SESSION_DETAIL)], []);
        assert.deepEqual(list.json().data.map((s: { id: string }) => s.id), [hosted.id, web.id]);
        assert.deepEqual(list.json().meta.pagination, { limit: 10, offset: 0, totalCount: 2 });
        assert.deepEqual(list.json().meta.filterableFields, ['id', 'serviceId', 'type', 'createdAt', 'updatedAt']);
        const bind = await send(alice, 'GET', `/sessions?filter=${encodeURIComponent('type = "Bind"')}`);
        assert.deepEqual(bind.json().data.map((s: { id: string }) => s.id), [hosted.id]);
        const paged = await send(alice, 'GET', '/sessions?sort=type&limit=1&offset=1');
        assert.deepEqual([paged.json().data[0].id, paged.json().meta.pagination.totalCount], [web.id, 2]);
        assert.deepEqual((await send(otherAlice, 'GET', '/sessions')).json().data, []);
        assert.equal((await send(alice, 'GET', '/sessions?filter=nonsense')).status, 400);

        const detail = await send(alice, 'GET', `/sessions/${web.id}`);
        assert.equal(detail.status, 200, detail.text);
        assert.deepEqual([detail.json().data.id, detail.json().data.serviceId], [web.id, services.web]);
        assert.equal((await verifiedClaims(detail.json().data.token)).payload.jti, web.id);
        for (const [caller, id] of [[bob, web.id], [otherAlice, web.id], [alice, bobs.id], [alice, 'no-such-session']] as const) {
          assert.equal((await send(caller, 'GET', `/sessions/${id}`)).status, 404);
          assert.equal((await send(caller, 'DELETE', `/sessions/${id}`)).status, 404);
        }
        assert.equal((await send(bob, 'GET', `/sessions/${bobs.id}`)).status, 200);
        const ended = await send(alice, 'DELETE', `/sessions/${web.id}`);
        assert.deepEqual([ended.status, ended.json().data], [200, {}]);
        assert.equal((await send(alice, 'GET', `/sessions/${web.id}`)).status, 404);
        assert.equal((await send(alice, 'DELETE', `/sessions/${web.id}`)).status, 404);
        assert.deepEqual((await send(alice, 'GET', '/sessions')).json().data.map((s: { id: string }) => s.id), [hosted.id]);
      });

      it('answers 401 without credentials', async () => {
        for (const [method, path] of [['POST', '/sessions'], ['GET', '/sessions'], ['GET', '/sessions/x'], ['DELETE', '/sessions/x'], ['GET', `/services/${services.web}/edge-routers`], ['GET', `/services/${services.web}/terminators`]]) {
          const res = await ctl.fetch(`${CLIENT}${path}`, { method, ...(method === 'POST' ? { body: { serviceId: services.web } } : {}) });
          assert.equal(res.status, 401, `${method} ${path}`);
        }
      });
    });
  }

  describe('sessions end with their API session', () => {
    it('on legacy logout, OIDC logout, OIDC revocation, and the identity\'s delete', async () => {
      const rowsOf = async (apiSessionId: string) => (await db().selectFrom('edge_sessions').select('id').where('api_session_id', '=', apiSessionId).execute()).length;
      const a = await legacy('alice');
      const b = await oidc('alice');
      const c = await oidc('alice');
      for (const caller of [a, b, c]) {
        assert.equal((await open(caller, { serviceId: services.web, type: 'Dial' })).status, 201);
        assert.equal(await rowsOf(caller.apiSessionId), 1);
      }
      assert.equal((await send(a, 'DELETE', '/current-api-session')).status, 200);
      assert.equal(await rowsOf(a.apiSessionId), 0);
      assert.equal((await send(b, 'DELETE', '/current-api-session')).status, 200);
      assert.equal(await rowsOf(b.apiSessionId), 0);
      assert.equal((await postForm(ctl, '/oidc/revoke', { token: c.refreshToken!, client_id: 'svc' })).status, 200);
      assert.equal(await rowsOf(c.apiSessionId), 0);

      const doomed = await createIdentity(ctl.running.database, { name: 'doomed-user', username: 'doomed-user-user', password: 'doomed-user-password' });
      identityIds['doomed-user'] = doomed.id;
      assert.equal((await admin.patch(`/identities/${doomed.id}`, { roleAttributes: ['staff'] })).status, 200);
      const d = await legacy('doomed-user');
      assert.equal((await open(d, { serviceId: services.web, type: 'Dial' })).status, 201);
      assert.equal((await admin.del(`/identities/${doomed.id}`)).status, 200);
      assert.equal(await rowsOf(d.apiSessionId), 0);
    });

    it("and with their service's delete", async () => {
      const alice = await legacy('alice');
      const res = await open(alice, { serviceId: services.doomed, type: 'Dial' });
      assert.equal(res.status, 201, res.text);
      assert.equal((await admin.del(`/services/${services.doomed}`)).status, 200);
      assert.equal((await send(alice, 'GET', `/sessions/${res.json().data.id}`)).status, 404);
      assert.equal((await db().selectFrom('edge_sessions').select('id').where('id', '=', res.json().data.id).execute()).length, 0);
    });
  });

  describe('a policy change that removes the right ends the session', () => {
    it('when the list, the detail or a session-token next reads it', async () => {
      const alice = await legacy('alice');
      const db1 = (await open(alice, { serviceId: services.db, type: 'Dial' })).json().data;
      const web1 = (await open(alice, { serviceId: services.web, type: 'Dial' })).json().data;
      const other = await oidc('alice');
      const db2 = (await open(other, { serviceId: services.db, type: 'Dial' })).json().data;
      const other2 = await legacy('alice');
      const db3 = (await open(other2, { serviceId: services.db, type: 'Dial' })).json().data;
      const serviceRoles = [`@${services.web}`, `@${services.lonely}`];
      assert.equal((await admin.patch(`/service-policies/${policies.dial}`, { serviceRoles })).status, 200);
      try {
        const list = await send(alice, 'GET', '/sessions');
        assert.deepEqual([list.json().data.map((s: { id: string }) => s.id), list.json().meta.pagination.totalCount], [[web1.id], 1]);
        assert.equal((await db().selectFrom('edge_sessions').select('id').where('id', '=', db1.id).execute()).length, 0);
        assert.equal((await send(other, 'GET', `/sessions/${db2.id}`)).status, 404);
        assert.equal((await db().selectFrom('edge_sessions').select('id').where('id', '=', db2.id).execute()).length, 0);
        const checked = await send(other2, 'GET', `/services/${services.db}/edge-routers`, { headers: { 'session-token': db3.token } });
        assert.equal(checked.status, 401, checked.text);
        assert.equal(checked.json().error.cause.reason, 'the session has ended');
        assert.equal((await db().selectFrom('edge_sessions').select('id').where('id', '=', db3.id).execute()).length, 0);
      } finally {
        const restored = [`@${services.web}`, `@${services.db}`, `@${services.lonely}`];
        assert.equal((await admin.patch(`/service-policies/${policies.dial}`, { serviceRoles: restored })).status, 200);
      }
    });
  });

  describe("a service's edge routers and terminators", () => {
    it('lists the routers both router policies give the caller and the service, with the list parameters', async () => {
      for (const caller of [await legacy('alice'), await oidc('alice')]) {
        const res = await send(caller, 'GET', `/services/${services.web}/edge-routers?sort=name`);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.json().data.edgeRouters.map((r: { name: string }) => r.name), ['r-1', 'r-2']);
        assert.deepEqual(listShapeProblems(res.json().data.edgeRouters, SESSION_EDGE_ROUTER), []);
        assert.deepEqual(res.json().data.edgeRouters[0].urls, { tls: 'tls://r-1.example:3022' });
        assert.deepEqual(res.json().meta.pagination, { limit: 10, offset: 0, totalCount: 2 });
        const page = await send(caller, 'GET', `/services/${services.web}/edge-routers?sort=name%20desc&limit=1`);
        assert.deepEqual([page.json().data.edgeRouters.map((r: { name: string }) => r.name), page.json().meta.pagination.totalCount], [['r-2'], 2]);
        const filtered = await send(caller, 'GET', `/services/${services.web}/edge-routers?filter=${encodeURIComponent('name = "r-1"')}`);
        assert.deepEqual(filtered.json().data.edgeRouters.map((r: { id: string }) => r.id), [routers['r-1']]);
        // A Bind-only service is visible too.
        assert.equal((await send(caller, 'GET', `/services/${services.hosted}/edge-routers`)).json().data.edgeRouters.length, 2);
        assert.equal((await send(caller, 'GET', `/services/${services.web}/edge-routers?filter=bad%20%3D`)).status, 400);
      }
    });

    it('answers 404 for a service the caller may not see; an administrator sees every service, with only its own routers', async () => {
      const alice = await legacy('alice');
      const carol = await legacy('carol');
      for (const [caller, id] of [[alice, services.hidden], [alice, 'no-such-service'], [carol, services.web]] as const) {
        for (const what of ['edge-routers', 'terminators']) {
          const res = await send(caller, 'GET', `/services/${id}/${what}`);
          assert.equal(res.status, 404, `${what}: ${res.text}`);
          assert.equal(res.json().error.message, `No service the caller may see has the id '${id}'`);
        }
      }
      const asAdmin = { headers: { 'svc-session': await ctl.adminToken() }, apiSessionId: '', identityId: '' };
      const res = await send(asAdmin, 'GET', `/services/${services.hidden}/edge-routers`);
      assert.deepEqual([res.status, res.json().data.edgeRouters], [200, []]);
      // An administrator sees the service but no policy grants it: 403, not 404.
      assert.equal((await open(asAdmin, { serviceId: services.web, type: 'Dial' })).status, 403);
    });

    it('lists the terminators of a service the caller sees, without their addresses', async () => {
      const terminator = await createdId(admin, '/terminators', { service: services.web, router: routers['r-1'], binding: 'transport', address: 'tcp:10.0.0.1:443', tags: { t: 'x' } });
      const res = await send(await legacy('alice'), 'GET', `/services/${services.web}/terminators`);
      assert.equal(res.status, 200, res.text);
      const [item] = res.json().data;
      assert.deepEqual(
        { id: item.id, serviceId: item.serviceId, service: item.service.name, routerId: item.routerId, identity: item.identity, tags: item.tags },
        { id: terminator, serviceId: services.web, service: 'web', routerId: routers['r-1'], identity: '', tags: { t: 'x' } },
      );
      assert.ok(!('address' in item) && !('binding' in item) && !('identitySecret' in item));
      const none = await send(await legacy('alice'), 'GET', `/services/${services.web}/terminators?filter=${encodeURIComponent(`routerId = "${routers['r-2']}"`)}`);
      assert.deepEqual([none.status, none.json().data], [200, []]);
    });
  });

  describe('the session-token header', () => {
    it('accepts a token of one of the caller\'s live sessions of this service', async () => {
      for (const caller of [await legacy('alice'), await oidc('alice')]) {
        const session = (await open(caller, { serviceId: services.web, type: 'Dial' })).json().data;
        const res = await send(caller, 'GET', `/services/${services.web}/edge-routers`, { headers: { 'session-token': session.token } });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json().data.edgeRouters.length, 2);
      }
    });

    it("refuses another service's, another identity's or API session's, tampered, unsigned, foreign and ended tokens with 401", async () => {
      const alice = await legacy('alice');
      const bob = await legacy('bob');
      const aliceOidc = await oidc('alice');
      const web = (await open(alice, { serviceId: services.web, type: 'Dial' })).json().data;
      const hosted = (await open(alice, { serviceId: services.hosted, type: 'Bind' })).json().data;
      const bobs = (await open(bob, { serviceId: services.web, type: 'Dial' })).json().data;
      const ended = (await open(aliceOidc, { serviceId: services.db, type: 'Dial' })).json().data;
      assert.equal((await send(aliceOidc, 'DELETE', `/sessions/${ended.id}`)).status, 200);
      const [header, payload, signature] = (web.token as string).split('.') as [string, string, string];
      const claims = decodeJwt(web.token);
      const forged = Buffer.from(JSON.stringify({ ...claims, sub: services.db })).toString('base64url');
      const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'service-session+jwt' })).toString('base64url')}.${payload}.`;
      const cases: Array<[string, Caller, string, string, string]> = [
        ["another service's token", alice, services.web!, hosted.token, 'the token is for another service'],
        ["another identity's token", alice, services.web!, bobs.token, 'the token belongs to another API session'],
        ["another API session's token of the same identity", aliceOidc, services.web!, web.token, 'the token belongs to another API session'],
        ['a tampered payload', alice, services.db!, `${header}.${forged}.${signature}`, 'the token is not valid'],
        ['a tampered signature', alice, services.web!, `${header}.${payload}.${signature.slice(0, -4)}AAAA`, 'the token is not valid'],
        ['alg none', alice, services.web!, none, 'the token is not valid'],
        ['no JWT at all', alice, services.web!, 'not-a-jwt', 'the token is not valid'],
        ['an empty value', alice, services.web!, '', 'the token is not valid'],
        ['an access token', aliceOidc, services.web!, aliceOidc.headers.authorization!.slice(7), 'the token is not valid'],
        ['an ended session', aliceOidc, services.db!, ended.token, 'the session has ended'],
      ];
      const before = await rowCount();
      for (const [what, caller, serviceId, token, reason] of cases) {
        const res = await send(caller, 'GET', `/services/${serviceId}/edge-routers`, { headers: { 'session-token': token } });
        assert.equal(res.status, 401, `${what}: ${res.text}`);
        assert.deepEqual([res.json().error.code, res.json().error.cause.field, res.json().error.cause.reason], ['UNAUTHORIZED', 'session-token', reason], what);
      }
      assert.equal(await rowCount(), before);
      // None of them ended the caller's own sessions.
      assert.equal((await send(alice, 'GET', `/sessions/${web.id}`)).status, 200);
    });

    it('refuses an expired token, which reading the session renews', async () => {
      const alice = await legacy('alice');
      const session = (await open(alice, { serviceId: services.web, type: 'Dial' })).json().data;
      // Keep the API session alive past the token's 30 minutes.
      clock.advance(20 * 60_000);
      assert.equal((await send(alice, 'GET', '/sessions')).status, 200);
      clock.advance(11 * 60_000);
      const res = await send(alice, 'GET', `/services/${services.web}/edge-routers`, { headers: { 'session-token': session.token } });
      assert.equal(res.status, 401, res.text);
      assert.equal(res.json().error.cause.reason, 'the token has expired');
      const fresh = await send(alice, 'GET', `/sessions/${session.id}`);
      assert.equal(fresh.status, 200, fresh.text);
      const renewed = await send(alice, 'GET', `/services/${services.web}/edge-routers`, { headers: { 'session-token': fresh.json().data.token } });
      assert.equal(renewed.status, 200, renewed.text);
      // The administrator's session of this file is long timed out by now.
      const adminId = (await db().selectFrom('identities').select('id').where('is_default_admin', '=', storedBool(true)).executeTakeFirstOrThrow()).id;
      admin = managementClient(ctl, (await ctl.running.services.apiSessions.start(adminId, 'password', '127.0.0.1')).token);
    });
  });

  it('opens nothing, and says so, when its API session or service is deleted while the request runs', async () => {
    const sessions = createEdgeSessionRepository(ctl.running.database);
    const now = new Date();
    const base = { id: 'race-session', identityId: identityIds.alice!, serviceId: services.web!, type: 'Dial' as const, tags: {}, createdAt: now, updatedAt: now };
    // An API session that no longer exists: the foreign key refuses the row, and the repository says so.
    assert.equal(await sessions.open({ ...base, apiSessionId: 'ended-api-session', apiSessionKind: 'legacy' }), undefined);
    assert.equal(await db().selectFrom('edge_sessions').select('id').where('id', '=', 'race-session').executeTakeFirst(), undefined);
  });

  it('opens one session when several requests for the same service and type race, and answers it to each', async () => {
    const sessions = createEdgeSessionRepository(ctl.running.database);
    const apiSession = await ctl.running.services.apiSessions.start(identityIds.carol!, 'password', '127.0.0.1');
    const now = new Date();
    const opened = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        sessions.open({ id: `racer-${i}`, apiSessionId: apiSession.session.id, apiSessionKind: 'legacy', identityId: identityIds.carol!, serviceId: services.db!, type: 'Bind', tags: {}, createdAt: now, updatedAt: now }),
      ),
    );
    const ids = new Set(opened.map((session) => session?.id));
    assert.equal(ids.size, 1, 'every racer answers the same session');
    assert.equal(opened[0]?.serviceName, 'db');
    const rows = await db().selectFrom('edge_sessions').select('id').where('api_session_id', '=', apiSession.session.id).execute();
    assert.deepEqual(rows.map((row) => row.id), [...ids]);
  });
});
