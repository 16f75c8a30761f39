/**
 * `GET /edge/client/v1/current-identity/edge-routers` (issue 15, item 4; decision 0030): the edge routers the caller's
 * edge router policies give it, for a legacy session and an OIDC access token alike, in the reference's shape, with
 * each router's online status and advertised addresses (decision 0064), disabled routers shown as disabled; the list
 * parameters page, sort and filter it; administrators get no shortcut; policy, attribute and router changes show at
 * once; bad list parameters and missing or foreign credentials are refused in the envelope.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as client from 'openid-client';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { discoverClient, loginToCallback } from '../helpers/oidc.js';
import { routerHello } from '../helpers/router-hello.js';
import { CURRENT_IDENTITY_EDGE_ROUTER_DETAIL, LIST_ENVELOPE, listShapeProblems, shapeProblems } from '../helpers/shapes.js';

const PATH = '/edge/client/v1/current-identity/edge-routers';
type Router = { id: string; name: string; [field: string]: unknown };

describe(`the current identity's edge routers on the client API (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  const routers: Record<string, string> = {};
  const identities: Record<string, string> = {};

  before(async () => {
    ctl = await startTestController();
    admin = managementClient(ctl, await ctl.adminToken());
    const router = async (name: string, body: Record<string, unknown>) => (routers[name] = await createdId(admin, '/edge-routers', { name, ...body }));
    await router('eu-1', { roleAttributes: ['eu'], tags: { site: 'fra' } });
    await router('us-1', { roleAttributes: ['us'], disabled: true, cost: 7, noTraversal: true });
    await router('both-1', { roleAttributes: ['eu', 'us'] });
    await router('named-1', {});
    await router('unused-1', { roleAttributes: ['eu'] });
    for (const name of ['alice', 'bob', 'nobody']) {
      identities[name] = (await createIdentity(ctl.running.database, { name, username: `${name}-user`, password: `${name}-password` })).id;
    }
    assert.equal((await admin.patch(`/identities/${identities.alice}`, { roleAttributes: ['staff'] })).status, 200);
    // unused-1 holds #eu but only for AnyOf policies naming other identities.
    const policy = (name: string, identityRoles: string[], edgeRouterRoles: string[], semantic = 'AnyOf') =>
      createdId(admin, '/edge-router-policies', { name, semantic, identityRoles, edgeRouterRoles });
    await policy('staff-eu', ['#staff'], [`@${routers['eu-1']}`, `@${routers['both-1']}`]);
    await policy('staff-us-and-eu', ['#staff'], ['#us', '#eu'], 'AllOf');
    await policy('staff-disabled', ['#staff'], [`@${routers['us-1']}`]);
    await policy('bob-named', [`@${identities.bob}`], [`@${routers['named-1']}`]);
    // eu-1's control channel is up, as the control plane reports it (decision 0064).
    await ctl.running.routerPresence.connected(routers['eu-1']!, routerHello('eu-1.example', ['tls:eu-1.example:3022', 'wss:eu-1.example:3023']));
  });
  after(async () => ctl.close());

  const legacyToken = async (name: string) =>
    (await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: `${name}-user`, password: `${name}-password` } })).json().data.token as string;
  const asLegacy = async (name: string, suffix = '') => ctl.fetch(`${PATH}${suffix}`, { headers: { 'svc-session': await legacyToken(name) } });
  const names = (res: { json(): any }) => (res.json().data as Router[]).map((router) => router.name);

  it('lists the routers the policies give the caller, by name, with the reference fields', async () => {
    const res = await asLegacy('alice', '?sort=name');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(names(res), ['both-1', 'eu-1', 'us-1']);
    assert.deepEqual(shapeProblems(res.json(), LIST_ENVELOPE), []);
    assert.deepEqual(listShapeProblems(res.json().data, CURRENT_IDENTITY_EDGE_ROUTER_DETAIL), []);
    const [both, eu, us] = res.json().data as Router[];
    assert.deepEqual(
      { ...eu, createdAt: undefined, updatedAt: undefined },
      {
        id: routers['eu-1'],
        name: 'eu-1',
        hostname: 'eu-1.example',
        isOnline: true,
        supportedProtocols: { tls: 'tls://eu-1.example:3022', wss: 'wss://eu-1.example:3023' },
        syncStatus: 'SYNC_DONE',
        cost: 0,
        noTraversal: false,
        disabled: false,
        tags: { site: 'fra' },
        _links: {},
        createdAt: undefined,
        updatedAt: undefined,
      },
    );
    assert.deepEqual([both!.hostname, both!.supportedProtocols, both!.isOnline, both!.syncStatus], ['', {}, false, 'SYNC_NEW']);
    // A disabled router is listed as disabled (and can never be online): the client decides not to use it.
    assert.deepEqual([us!.disabled, us!.isOnline, us!.cost, us!.noTraversal], [true, false, 7, true]);
    assert.ok(!('appData' in eu!) && !('enrollmentJwt' in eu!) && !('fingerprint' in eu!) && !('roleAttributes' in eu!));
    assert.deepEqual(res.json().meta.filterableFields, ['id', 'name', 'createdAt', 'updatedAt']);
  });

  it('answers each identity with its own routers, and none to one no policy names', async () => {
    assert.deepEqual(names(await asLegacy('bob')), ['named-1']);
    const nobody = await asLegacy('nobody');
    assert.deepEqual([nobody.status, nobody.json().data, nobody.json().meta.pagination.totalCount], [200, [], 0]);
  });

  it('gives an administrator no shortcut: only the routers its policies give it', async () => {
    const res = await ctl.fetch(PATH, { headers: { 'svc-session': await ctl.adminToken() } });
    assert.deepEqual([res.status, res.json().data], [200, []]);
  });

  it('answers the same to an OIDC access token as to a legacy session', async () => {
    const config = await discoverClient(ctl);
    const login = await loginToCallback(ctl, config, 'alice-user', 'alice-password');
    const tokens = await client.authorizationCodeGrant(config, login.callback, { pkceCodeVerifier: login.verifier, expectedState: login.state, expectedNonce: login.nonce });
    const bearer = await ctl.fetch(`${PATH}?sort=name`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(bearer.status, 200, bearer.text);
    assert.deepEqual(bearer.json().data, (await asLegacy('alice', '?sort=name')).json().data);
  });

  it('pages, sorts and filters with the list parameters', async () => {
    const token = await legacyToken('alice');
    const get = (suffix: string) => ctl.fetch(`${PATH}${suffix}`, { headers: { 'svc-session': token } });
    const page = await get('?sort=name%20desc&limit=1&offset=1');
    assert.deepEqual([names(page), page.json().meta.pagination], [['eu-1'], { limit: 1, offset: 1, totalCount: 3 }]);
    assert.deepEqual(names(await get(`?filter=${encodeURIComponent('name contains "u" sort by name')}`)), ['eu-1', 'us-1']);
    assert.deepEqual(names(await get(`?filter=${encodeURIComponent(`id = "${routers['both-1']}"`)}`)), ['both-1']);
  });

  it('follows policy, attribute and router changes at once', async () => {
    assert.equal((await admin.patch(`/identities/${identities.bob}`, { roleAttributes: ['staff'] })).status, 200);
    assert.deepEqual(names(await asLegacy('bob', '?sort=name')), ['both-1', 'eu-1', 'named-1', 'us-1']);
    assert.equal((await admin.patch(`/identities/${identities.bob}`, { roleAttributes: [] })).status, 200);
    const extra = await createdId(admin, '/edge-router-policies', { name: 'nobody-eu', semantic: 'AnyOf', identityRoles: [`@${identities.nobody}`], edgeRouterRoles: ['#eu'] });
    assert.deepEqual(names(await asLegacy('nobody', '?sort=name')), ['both-1', 'eu-1', 'unused-1']);
    assert.equal((await admin.del(`/edge-routers/${routers['unused-1']}`)).status, 200);
    assert.deepEqual(names(await asLegacy('nobody', '?sort=name')), ['both-1', 'eu-1']);
    assert.equal((await admin.del(`/edge-router-policies/${extra}`)).status, 200);
    assert.deepEqual(names(await asLegacy('nobody')), []);
  });

  describe('bad input', () => {
    it('refuses bad list parameters with 400 naming the parameter', async () => {
      const token = await legacyToken('alice');
      const cases: [string, string, string][] = [
        ['?limit=0', 'INVALID_PAGINATION', 'limit'],
        ['?limit=x', 'INVALID_PAGINATION', 'limit'],
        ['?offset=-1', 'INVALID_PAGINATION', 'offset'],
        ['?sort=isOnline', 'INVALID_SORT_IDENTIFIER', 'sort'],
        ['?sort=name%20sideways', 'INVALID_SORT_IDENTIFIER', 'sort'],
        [`?filter=${encodeURIComponent('isOnline = true')}`, 'INVALID_FILTER', 'filter'],
        [`?filter=${encodeURIComponent('name = ')}`, 'INVALID_FILTER', 'filter'],
        ['?limit=1&limit=2', 'COULD_NOT_VALIDATE', 'limit'],
      ];
      for (const [suffix, code, field] of cases) {
        const res = await ctl.fetch(`${PATH}${suffix}`, { headers: { 'svc-session': token } });
        assert.equal(res.status, 400, `${suffix}: ${res.text}`);
        assert.deepEqual([res.json().error.code, res.json().error.cause.field], [code, field], `${suffix}: ${res.text}`);
      }
    });

    it('refuses a missing, unknown or logged-out credential with 401 in the envelope', async () => {
      const token = await legacyToken('alice');
      assert.equal((await ctl.fetch('/edge/client/v1/current-api-session', { method: 'DELETE', headers: { 'svc-session': token } })).status, 200);
      const credentials: Record<string, string>[] = [{}, { 'svc-session': 'not-a-session' }, { 'svc-session': token }, { authorization: 'Bearer eyJhbGciOiJub25lIn0.e30.' }];
      for (const headers of credentials) {
        const res = await ctl.fetch(PATH, { headers });
        assert.equal(res.status, 401, JSON.stringify(headers));
        assert.equal(res.json().error.code, 'UNAUTHORIZED');
      }
    });

    it('is not an operation of the management API', async () => {
      const res = await ctl.fetch('/edge/management/v1/current-identity/edge-routers', { headers: { 'svc-session': await ctl.adminToken() } });
      assert.equal(res.status, 404);
    });
  });

  it('is documented in the served client API document', async () => {
    const doc = (await ctl.fetch('/edge/client/v1/specs/edge-client/spec')).json().data;
    const operation = doc.paths['/current-identity/edge-routers'].get;
    assert.equal(operation.operationId, 'getCurrentIdentityEdgeRouters');
    assert.deepEqual((operation.parameters as Array<{ name: string }>).map((parameter) => parameter.name).sort(), ['filter', 'limit', 'offset', 'sort']);
  });
});
