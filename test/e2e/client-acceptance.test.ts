/**
 * Issue 15's acceptance, end to end on a listening controller, as a real client goes through it:
 * 1. An operator builds a small network through the Management API: a config type and a config, a service carrying
 *    it, Dial and Bind policies by role attribute, an edge router, and both kinds of router policy.
 * 2. One identity logs in by OIDC (with `openid-client`), another with a legacy session. Each polls service updates,
 *    lists its services with their configs, opens a session (Dial, Bind), verifies the session's JWT against the
 *    controller's published keys, and reads the service's edge routers with the `session-token` header.
 * 3. A policy change then moves `lastChangeAt` for exactly the identity it affects, takes the service off its list
 *    and ends its session, while the other identity's time, list and session stay as they were.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import * as client from 'openid-client';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { discoverClient, loginToCallback } from '../helpers/oidc.js';

const CLIENT = '/edge/client/v1';
const APP_CONFIG = { port: 8443, path: '/api' };

describe(`a client after login, end to end (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  const ids: Record<string, string> = {};
  const headers: Record<'dialer' | 'host', Record<string, string>> = { dialer: {}, host: {} };

  before(async () => {
    ctl = await startTestController();
    admin = managementClient(ctl, await ctl.adminToken());
    // 1. The operator's network.
    ids.type = await createdId(admin, '/config-types', { name: 'app.v1', schema: { type: 'object', properties: { port: { type: 'integer' }, path: { type: 'string' } }, required: ['port'] } });
    ids.config = await createdId(admin, '/configs', { name: 'crm-app', configTypeId: ids.type, data: APP_CONFIG });
    ids.service = await createdId(admin, '/services', { name: 'crm', roleAttributes: ['crm'], configs: [ids.config] });
    ids.router = await createdId(admin, '/edge-routers', { name: 'er-1', roleAttributes: ['public'] });
    for (const [name, attribute] of [['dialer', 'sales'], ['host', 'crm-hosts']] as const) {
      ids[name] = (await createIdentity(ctl.running.database, { name, username: `${name}-user`, password: `${name}-password` })).id;
      assert.equal((await admin.patch(`/identities/${ids[name]}`, { roleAttributes: [attribute] })).status, 200);
    }
    ids.dial = await createdId(admin, '/service-policies', { name: 'sales-dial-crm', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#sales'], serviceRoles: ['#crm'] });
    ids.bind = await createdId(admin, '/service-policies', { name: 'hosts-bind-crm', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#crm-hosts'], serviceRoles: ['#crm'] });
    await createdId(admin, '/edge-router-policies', { name: 'everyone-public', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#public'] });
    await createdId(admin, '/service-edge-router-policies', { name: 'crm-public', semantic: 'AnyOf', serviceRoles: ['#crm'], edgeRouterRoles: ['#public'] });

    // 2. The dialer logs in by OIDC, as the SDKs do; the host with a legacy session.
    const config = await discoverClient(ctl);
    const login = await loginToCallback(ctl, config, 'dialer-user', 'dialer-password');
    const tokens = await client.authorizationCodeGrant(config, login.callback, { pkceCodeVerifier: login.verifier, expectedState: login.state, expectedNonce: login.nonce });
    headers.dialer = { authorization: `Bearer ${tokens.access_token}` };
    const legacy = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: 'host-user', password: 'host-password', configTypes: ['app.v1'] } });
    assert.equal(legacy.status, 200, legacy.text);
    headers.host = { 'svc-session': legacy.json().data.token };
  });
  after(async () => ctl.close());

  const call = (who: 'dialer' | 'host', path: string, options: { method?: string; body?: object; extra?: Record<string, string> } = {}) =>
    ctl.fetch(`${CLIENT}${path}`, { method: options.method ?? 'GET', headers: { ...headers[who], ...options.extra }, ...(options.body === undefined ? {} : { body: options.body }) });
  const lastChangeAt = async (who: 'dialer' | 'host') => {
    const res = await call(who, '/current-api-session/service-updates');
    assert.equal(res.status, 200, res.text);
    return Date.parse(res.json().data.lastChangeAt);
  };
  const sessions: Record<'dialer' | 'host', { id: string; token: string }> = { dialer: { id: '', token: '' }, host: { id: '', token: '' } };
  const times: Record<'dialer' | 'host', number> = { dialer: 0, host: 0 };

  it('polls, lists the service with its config, opens a session, verifies its token and reads its routers', async () => {
    const jwks = (await ctl.fetch('/oidc/keys')).json() as JSONWebKeySet;
    for (const [who, type, configTypes] of [['dialer', 'Dial', '?configTypes=all'], ['host', 'Bind', '']] as const) {
      times[who] = await lastChangeAt(who);
      const listed = await call(who, `/services${configTypes}`);
      assert.equal(listed.status, 200, listed.text);
      const [service] = listed.json().data;
      // The dialer asks for every config type in the request; the host asked for app.v1 at login.
      assert.deepEqual([listed.json().data.length, service.name, service.permissions, service.config], [1, 'crm', [type], { 'app.v1': APP_CONFIG }], who);

      const created = await call(who, '/sessions', { method: 'POST', body: { serviceId: ids.service, type } });
      assert.equal(created.status, 201, created.text);
      const session = created.json().data;
      assert.deepEqual([session.type, session.serviceId ?? session.service?.id, session.edgeRouters.map((router: { name: string }) => router.name)], [type, ids.service, ['er-1']], who);
      sessions[who] = { id: session.id, token: session.token };

      // A router checks the token with the controller's published keys alone.
      const { payload, protectedHeader } = await jwtVerify(session.token, createLocalJWKSet(jwks), { audience: 'svc-edge-router', issuer: ctl.baseUrl });
      assert.deepEqual([payload.jti, payload.sub, payload.z_st, payload.z_iid, protectedHeader.typ], [session.id, ids.service, type, ids[who], 'service-session+jwt'], who);

      const routers = await call(who, `/services/${ids.service}/edge-routers`, { extra: { 'session-token': session.token } });
      assert.equal(routers.status, 200, routers.text);
      assert.deepEqual(routers.json().data.edgeRouters.map((router: { name: string }) => router.name), ['er-1'], who);
    }
    // One identity's session token is not the other's.
    const foreign = await call('host', `/services/${ids.service}/edge-routers`, { extra: { 'session-token': sessions.dialer.token } });
    assert.equal(foreign.status, 401, foreign.text);
  });

  it("a policy change moves only the affected identity's time, takes the service off its list and ends its session", async () => {
    assert.equal((await admin.patch(`/service-policies/${ids.dial}`, { identityRoles: ['#nobody-yet'] })).status, 200);
    const [dialerAfter, hostAfter] = [await lastChangeAt('dialer'), await lastChangeAt('host')];
    assert.ok(dialerAfter > times.dialer, 'the dialer was affected');
    assert.equal(hostAfter, times.host, 'the host was not');

    assert.deepEqual((await call('dialer', '/services')).json().data, []);
    assert.deepEqual((await call('host', '/services')).json().data.map((s: { name: string }) => s.name), ['crm']);

    assert.equal((await call('dialer', `/sessions/${sessions.dialer.id}`)).status, 404);
    assert.equal((await call('host', `/sessions/${sessions.host.id}`)).status, 200);
    const refused = await call('dialer', `/services/${ids.service}/edge-routers`, { extra: { 'session-token': sessions.dialer.token } });
    assert.ok([401, 404].includes(refused.status), refused.text);
  });
});
