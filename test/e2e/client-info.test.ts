/**
 * What logins say about the client (issue 11, point 3): `sdkInfo` and `envInfo` are recorded on the identity by a
 * legacy login and by an OIDC login (JSON body) alike and shown by current-identity and the management identity
 * detail; `configTypes` is shown on the API session of either kind (and is the OIDC access token's `z_ct`); malformed
 * values are refused with 400 naming the field, recording nothing. And `hasApiSession` (point 7): true exactly while
 * a legacy session or an unrevoked OIDC session of the identity lives, across login, logout and expiry.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import type * as client from 'openid-client';
import { manualClock } from '../../src/shared/clock.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { addCertAuthenticator, createIdentity, issueClientCertificate } from '../helpers/fixtures.js';
import { managementClient } from '../helpers/management.js';
import { discoverClient, followCallback, postForm, REDIRECT_URI, startLogin } from '../helpers/oidc.js';

const CLIENT = '/edge/client/v1';
const MINUTE = 60_000;

const SDK_INFO = { type: 'svc-sdk-test', version: '1.2.3', revision: 'abc123', branch: 'main', appId: 'shape-app', appVersion: '0.9', buildNumber: 42, beta: true };
const ENV_INFO = { arch: 'amd64', os: 'linux', osRelease: '6.1', osVersion: '#1 SMP', hostname: 'laptop-01', domain: 'example.test' };

/** Bodies refused by both login kinds, and the field each refusal must name. */
const MALFORMED: Array<{ what: string; body: Record<string, unknown>; field: string }> = [
  { what: 'sdkInfo that is not an object', body: { sdkInfo: 'svc-sdk 1.0' }, field: 'sdkInfo' },
  { what: 'a known sdkInfo field too long', body: { sdkInfo: { appId: 'a'.repeat(256) } }, field: 'sdkInfo.appId' },
  { what: 'a known envInfo field of the wrong type', body: { envInfo: { os: 7 } }, field: 'envInfo.os' },
  { what: 'an envInfo hostname longer than a DNS name', body: { envInfo: { hostname: 'h'.repeat(254) } }, field: 'envInfo.hostname' },
  { what: 'envInfo nested too deep', body: { envInfo: { machine: { cpu: 'x86' } } }, field: 'envInfo.machine' },
  { what: 'an sdkInfo value that is a list', body: { sdkInfo: { features: ['a', 'b'] } }, field: 'sdkInfo.features' },
  { what: 'an extra sdkInfo text too long', body: { sdkInfo: { note: 'n'.repeat(256) } }, field: 'sdkInfo.note' },
  { what: 'sdkInfo with too many properties', body: { sdkInfo: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`field${i}`, i])) }, field: 'sdkInfo' },
  { what: 'configTypes that is not a list', body: { configTypes: 'all' }, field: 'configTypes' },
  { what: 'configTypes with too many entries', body: { configTypes: Array.from({ length: 101 }, (_, i) => `type-${i}`) }, field: 'configTypes' },
  { what: 'a config type that is not a string', body: { configTypes: ['intercept.v1', 5] }, field: 'configTypes.1' },
  { what: 'an empty config type', body: { configTypes: [''] }, field: 'configTypes.0' },
  { what: 'a config type too long', body: { configTypes: ['c'.repeat(256)] }, field: 'configTypes.0' },
];

describe(`client info at login and session presence (${testDialect})`, () => {
  const clock = manualClock();
  let ctl: TestController;
  let config: client.Configuration;
  let userCount = 0;
  before(async () => {
    ctl = await startTestController({ clock });
    config = await discoverClient(ctl);
    await ctl.adminToken(); // creates the default admin `admin` / `admin-password`
  });
  after(async () => ctl.close());

  /** A new identity with a password; each test has its own. */
  async function newUser() {
    const name = `info-user-${++userCount}`;
    const identity = await createIdentity(ctl.running.database, { name, password: `${name}-password` });
    return { ...identity, password: `${name}-password` };
  }

  /** The management detail of an identity, read with a fresh admin session (the manual clock may have ended others). */
  async function managementDetail(id: string) {
    const login = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: 'admin', password: 'admin-password' } });
    const res = await managementClient(ctl, login.json().data.token).get(`/identities/${id}`);
    assert.equal(res.status, 200, res.text);
    return res.json().data;
  }

  const legacyLogin = (user: { name: string; password: string }, extra: Record<string, unknown> = {}) =>
    ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: user.name, password: user.password, ...extra } });
  const withSession = (path: string, token: string, method = 'GET') => ctl.fetch(`${CLIENT}${path}`, { method, headers: { 'svc-session': token } });
  const withBearer = (path: string, token: string, method = 'GET') => ctl.fetch(`${CLIENT}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
  const sessionCount = async (identityId: string) =>
    Number((await ctl.running.database.db.selectFrom('api_sessions').select((eb) => eb.fn.countAll().as('n')).where('identity_id', '=', identityId).executeTakeFirstOrThrow()).n);

  /** An OIDC password login with `extra` in its JSON body, up to the tokens; `scope` defaults to openid offline_access. */
  async function oidcLogin(user: { name: string; password: string }, extra: Record<string, unknown> = {}, scope?: string) {
    const started = await startLogin(ctl, config, scope === undefined ? {} : { scope });
    const res = await ctl.fetch('/oidc/login/password', { method: 'POST', body: { authRequestId: started.authRequestId, username: user.name, password: user.password, ...extra } });
    assert.equal(res.status, 302, res.text);
    const code = new URL(String(await followCallback(ctl, res.headers.location))).searchParams.get('code') ?? '';
    const tokens = await postForm(ctl, '/oidc/token', { grant_type: 'authorization_code', client_id: 'svc', redirect_uri: REDIRECT_URI, code, code_verifier: started.verifier });
    assert.equal(tokens.status, 200, tokens.text);
    return tokens.json() as { access_token: string; refresh_token?: string };
  }

  describe('sdkInfo, envInfo and configTypes', () => {
    it('records sdkInfo and envInfo of a legacy login on the identity, and shows configTypes on its session', async () => {
      const user = await newUser();
      const res = await legacyLogin(user, { sdkInfo: SDK_INFO, envInfo: ENV_INFO, configTypes: ['intercept.v1', 'host.v1'] });
      assert.equal(res.status, 200, res.text);
      const { token, configTypes } = res.json().data;
      assert.deepEqual(configTypes, ['g7cIWbcGg', 'NH5p4FpGR'], 'names resolved to ids (decision 0029)');
      assert.deepEqual((await withSession('/current-api-session', token)).json().data.configTypes, ['g7cIWbcGg', 'NH5p4FpGR']);
      const me = (await withSession('/current-identity', token)).json().data;
      assert.deepEqual([me.sdkInfo, me.envInfo], [SDK_INFO, ENV_INFO]);
      const detail = await managementDetail(user.id);
      assert.deepEqual([detail.sdkInfo, detail.envInfo], [SDK_INFO, ENV_INFO]);
    });

    it('keeps what was recorded when a later login says nothing, and replaces only what a login says anew', async () => {
      const user = await newUser();
      assert.equal((await legacyLogin(user, { sdkInfo: SDK_INFO, envInfo: ENV_INFO })).status, 200);
      const quiet = await legacyLogin(user);
      assert.deepEqual((await withSession('/current-identity', quiet.json().data.token)).json().data.sdkInfo, SDK_INFO);
      assert.deepEqual(quiet.json().data.configTypes, [], 'a session asks for no config types unless its login did');
      const newer = { type: 'svc-sdk-test', version: '2.0.0' };
      const updated = await legacyLogin(user, { sdkInfo: newer });
      const me = (await withSession('/current-identity', updated.json().data.token)).json().data;
      assert.deepEqual([me.sdkInfo, me.envInfo], [newer, ENV_INFO]);
    });

    it('records sdkInfo and envInfo of an OIDC login with a JSON body, and carries configTypes to the session and z_ct', async () => {
      const user = await newUser();
      const tokens = await oidcLogin(user, { sdkInfo: SDK_INFO, envInfo: ENV_INFO, configTypes: ['intercept.v1'] });
      assert.deepEqual(decodeJwt(tokens.access_token).z_ct, ['g7cIWbcGg']);
      const session = await withBearer('/current-api-session', tokens.access_token);
      assert.equal(session.status, 200, session.text);
      assert.deepEqual(session.json().data.configTypes, ['g7cIWbcGg']);
      const me = (await withBearer('/current-identity', tokens.access_token)).json().data;
      assert.deepEqual([me.sdkInfo, me.envInfo], [SDK_INFO, ENV_INFO]);
      const detail = await managementDetail(user.id);
      assert.deepEqual([detail.sdkInfo, detail.envInfo], [SDK_INFO, ENV_INFO]);
    });

    it('records them at an OIDC certificate login too, the body beside the client certificate', async () => {
      const user = await newUser();
      const cert = await issueClientCertificate(ctl.pki, user.id);
      await addCertAuthenticator(ctl.running.database, user.id, cert.leafPem);
      const tls = { certPem: cert.certPem, keyPem: cert.keyPem };
      const started = await startLogin(ctl, config, { method: 'cert' }, tls);
      const res = await ctl.fetch('/oidc/login/cert', { method: 'POST', cert: tls.certPem, key: tls.keyPem, body: { authRequestId: started.authRequestId, envInfo: ENV_INFO, sdkInfo: SDK_INFO } });
      assert.equal(res.status, 302, res.text);
      const detail = await managementDetail(user.id);
      assert.deepEqual([detail.sdkInfo, detail.envInfo], [SDK_INFO, ENV_INFO]);
    });

    it('still takes a browser form login of strings, a single configTypes value as a list of one', async () => {
      const user = await newUser();
      const started = await startLogin(ctl, config);
      const res = await ctl.fetch('/oidc/login/password', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ authRequestId: started.authRequestId, username: user.name, password: user.password, configTypes: 'intercept.v1' }).toString(),
      });
      assert.equal(res.status, 302, res.text);
      const code = new URL(String(await followCallback(ctl, res.headers.location))).searchParams.get('code') ?? '';
      const tokens = await postForm(ctl, '/oidc/token', { grant_type: 'authorization_code', client_id: 'svc', redirect_uri: REDIRECT_URI, code, code_verifier: started.verifier });
      assert.deepEqual(decodeJwt(tokens.json().access_token).z_ct, ['g7cIWbcGg']);
    });

    it('refuses malformed client info at the legacy authenticate with 400 naming the field, recording nothing', async () => {
      const user = await newUser();
      assert.equal((await legacyLogin(user, { sdkInfo: { type: 'before' }, envInfo: { os: 'before' } })).status, 200);
      const sessions = await sessionCount(user.id);
      for (const { what, body, field } of MALFORMED) {
        const res = await legacyLogin(user, { sdkInfo: { type: 'after' }, envInfo: { os: 'after' }, ...body });
        assert.equal(res.status, 400, `${what}: ${res.text}`);
        assert.deepEqual([res.json().error.code, res.json().error.cause.field], ['COULD_NOT_VALIDATE', field], what);
      }
      const badName = await legacyLogin(user, { sdkInfo: { 'not a name': 'x' } });
      assert.equal(badName.status, 400, badName.text);
      assert.equal(badName.json().error.cause.field, 'sdkInfo');
      assert.equal(await sessionCount(user.id), sessions, 'no session was opened');
      const detail = await managementDetail(user.id);
      assert.deepEqual([detail.sdkInfo, detail.envInfo], [{ type: 'before' }, { os: 'before' }]);
    });

    it('refuses malformed client info at the OIDC login with 400 naming the field, recording nothing; the request still logs in', async () => {
      const user = await newUser();
      const started = await startLogin(ctl, config);
      const post = (extra: Record<string, unknown>) =>
        ctl.fetch('/oidc/login/password', { method: 'POST', body: { authRequestId: started.authRequestId, username: user.name, password: user.password, ...extra } });
      for (const { what, body, field } of MALFORMED) {
        const res = await post({ sdkInfo: { type: 'after' }, ...body });
        assert.equal(res.status, 400, `${what}: ${res.text}`);
        assert.equal(res.json().error, 'invalid_request', what);
        assert.ok(res.json().error_description.startsWith(`${field} `), `${what}: ${res.json().error_description}`);
      }
      const badName = await post({ envInfo: { 'not a name': 'x' } });
      assert.equal(badName.status, 400);
      assert.match(badName.json().error_description, /^envInfo\.not a name is not an accepted name/);
      const detail = await managementDetail(user.id);
      assert.deepEqual([detail.sdkInfo, detail.envInfo], [{}, {}]);
      assert.equal((await post({ sdkInfo: { type: 'fixed' } })).status, 302, 'the same request logs in once the body is right');
    });
  });

  describe('hasApiSession', () => {
    it('follows a legacy session: false before, true after login, false after logout and once idle past the timeout', async () => {
      const user = await newUser();
      assert.equal((await managementDetail(user.id)).hasApiSession, false);
      const first = (await legacyLogin(user)).json().data.token;
      assert.equal((await managementDetail(user.id)).hasApiSession, true);
      assert.equal((await withSession('/current-api-session', first, 'DELETE')).status, 200);
      assert.equal((await managementDetail(user.id)).hasApiSession, false, 'logged out');
      const second = (await legacyLogin(user)).json().data.token;
      assert.equal((await withSession('/current-identity', second)).json().data.hasApiSession, true);
      clock.advance(31 * MINUTE);
      assert.equal((await managementDetail(user.id)).hasApiSession, false, 'timed out (30 minutes without activity)');
    });

    it('follows an OIDC session: true after the code exchange, false after logout and once its access token expired', async () => {
      const user = await newUser();
      const withRefresh = await oidcLogin(user);
      assert.equal((await managementDetail(user.id)).hasApiSession, true);
      assert.equal((await withBearer('/current-identity', withRefresh.access_token)).json().data.hasApiSession, true);
      clock.advance(31 * MINUTE);
      assert.equal((await managementDetail(user.id)).hasApiSession, true, 'its refresh token still lives');
      const refreshed = await postForm(ctl, '/oidc/token', { grant_type: 'refresh_token', client_id: 'svc', refresh_token: withRefresh.refresh_token ?? '' });
      assert.equal(refreshed.status, 200, refreshed.text);
      assert.equal((await withBearer('/current-api-session', refreshed.json().access_token, 'DELETE')).status, 200);
      assert.equal((await managementDetail(user.id)).hasApiSession, false, 'logged out');

      await oidcLogin(user, {}, 'openid');
      assert.equal((await managementDetail(user.id)).hasApiSession, true);
      clock.advance(31 * MINUTE);
      assert.equal((await managementDetail(user.id)).hasApiSession, false, 'its only access token expired and it has no refresh token');
    });

    it('lists identities with the same presence as their details', async () => {
      const user = await newUser();
      await legacyLogin(user);
      const login = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: 'admin', password: 'admin-password' } });
      const list = await managementClient(ctl, login.json().data.token).get(`/identities?filter=${encodeURIComponent(`name = "${user.name}"`)}`);
      assert.deepEqual(list.json().data.map((item: { hasApiSession: boolean }) => item.hasApiSession), [true]);
    });
  });
});
