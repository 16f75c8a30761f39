/**
 * The OIDC login as the public C SDK sends it, request by request, byte for byte where the SDK's shape matters (issue
 * 40, point 1; decision 0055). The SDK (library/oidc.c of ziti-sdk-c, brand renamed to `svc`):
 * - POSTs the authorization endpoint with every parameter in the query (adding `audience`) and no body;
 * - cuts the auth request id out of the redirect after `authRequestID=` and logs in at `/oidc/login/cert?id=<id>` with
 *   its JSON `sdkInfo`/`envInfo` body (or answers TOTP at `/oidc/login/totp` with the form `id=&code=`);
 * - follows the login's redirect by its path and query, and takes everything after `code=` in the next redirect as
 *   the code, so its token form carries `state` twice and a stray, doubly encoded `iss`;
 * - refreshes with `Authorization: Basic` of `svc:` (base64url, padded) beside `client_id` in the form.
 * Each shape is sent here as the SDK sends it, and the flow must end in tokens that work on the Client API. Then the
 * Client API calls the SDK makes with them (library/ziti_ctrl.c), in both modes (Bearer, and the legacy `svc-session`
 * header after `authenticate?method=cert`): its paged lists (`?limit=25&offset=N` appended to the path, after
 * `configTypes=all` for services), the service lookup by a name filter, a service's routers (`offset=0&limit=100`),
 * the session create with its hand-written JSON body, and the polls.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { manualClock } from '../../src/shared/clock.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { createdId, managementClient } from '../helpers/management.js';
import { testDialect } from '../helpers/database.js';
import { addCertAuthenticator, createAuthPolicy, createIdentity, issueClientCertificate, updateIdentityRow } from '../helpers/fixtures.js';
import { totpCode } from '../helpers/totp.js';

/** The SDK's fixed callback (`http://localhost:20314/auth/callback`), which the default redirect URIs accept. */
const SDK_REDIRECT_URI = 'http://localhost:20314/auth/callback';
/** The body the SDK posts to a login endpoint: its `ziti_auth_req` with sdkInfo and envInfo. */
const SDK_LOGIN_BODY = {
  sdkInfo: { type: 'ziti-sdk-c', version: '1.9.17', revision: 'a1b2c3d', branch: 'HEAD', appId: 'svc-tests', appVersion: '0.1.0' },
  envInfo: { os: 'Linux', osRelease: '6.1.0', osVersion: '#1 SMP Debian', arch: 'x86_64', hostname: 'device-host', domain: '' },
};
const STEP_MS = 30_000;

/** What the SDK's tlsuv form encoder does to a value: `%` is escaped, `&` and `=` pass as they are. */
const sdkFormValue = (value: string) => value.replace(/%/g, '%25').replace(/:/g, '%3A').replace(/\//g, '%2F');

describe(`the public C SDK's requests, as it sends them (${testDialect})`, () => {
  const clock = manualClock(new Date());
  let ctl: TestController;
  let device: { certPem: string; keyPem: string };
  let deviceId: string;
  let endpoints: { authorization: string; token: string };
  let serviceId: string;

  before(async () => {
    ctl = await startTestController({ clock });
    deviceId = (await createIdentity(ctl.running.database, { name: 'c-sdk-device' })).id;
    const issued = await issueClientCertificate(ctl.pki, 'c-sdk-device');
    await addCertAuthenticator(ctl.running.database, deviceId, issued.leafPem);
    device = issued;
    const discovery = await ctl.fetch('/oidc/.well-known/openid-configuration', { headers: { accept: 'application/json' } });
    assert.equal(discovery.status, 200, discovery.text);
    endpoints = { authorization: discovery.json().authorization_endpoint, token: discovery.json().token_endpoint };

    // What the device may reach: a service with a config, by a Dial policy, through one edge router.
    const admin = managementClient(ctl, await ctl.adminToken());
    assert.equal((await admin.patch(`/identities/${deviceId}`, { roleAttributes: ['devices'] })).status, 200);
    const configTypeId = await createdId(admin, '/config-types', { name: 'echo-app.v1', schema: { type: 'object' } });
    const configId = await createdId(admin, '/configs', { name: 'echo-intercept', configTypeId, data: { protocols: ['tcp'], addresses: ['echo.svc'], portRanges: [{ low: 7, high: 7 }] } });
    serviceId = await createdId(admin, '/services', { name: 'echo', roleAttributes: ['echo'], configs: [configId] });
    await createdId(admin, '/edge-routers', { name: 'er-c-sdk', roleAttributes: ['public'] });
    await createdId(admin, '/service-policies', { name: 'devices-dial-echo', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#devices'], serviceRoles: ['#echo'] });
    await createdId(admin, '/edge-router-policies', { name: 'devices-public', semantic: 'AnyOf', identityRoles: ['#devices'], edgeRouterRoles: ['#public'] });
    await createdId(admin, '/service-edge-router-policies', { name: 'echo-public', semantic: 'AnyOf', serviceRoles: ['#echo'], edgeRouterRoles: ['#public'] });
  });
  after(async () => ctl.close());

  type Device = { certPem: string; keyPem: string };
  const tls = (who: Device = device) => ({ cert: who.certPem, key: who.keyPem });

  /** Authorization POST with the query only, then the id cut out of the redirect as the SDK cuts it. */
  async function authorize(who: Device = device) {
    const verifier = randomBytes(40).toString('base64url');
    const state = randomBytes(30).toString('base64url');
    const query = new URLSearchParams({
      client_id: 'svc',
      scope: 'openid offline_access',
      response_type: 'code',
      redirect_uri: SDK_REDIRECT_URI,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state,
      audience: 'svc',
    });
    const res = await ctl.fetch(`${endpoints.authorization}?${query}`, { method: 'POST', headers: { accept: 'application/json' }, ...tls(who) });
    assert.equal(res.status, 302, res.text);
    const location = String(res.headers.location);
    const from = location.indexOf('authRequestID=') + 'authRequestID='.length;
    const end = location.indexOf('&', from);
    return { verifier, state, id: location.slice(from, end < 0 ? undefined : end) };
  }

  /** The login redirect followed by its path and query, and the code the SDK takes: all after `code=`. */
  async function codeTail(loginLocation: string, who: Device = device) {
    const target = new URL(loginLocation, ctl.baseUrl);
    const hop = await ctl.fetch(`${target.pathname}${target.search}`, { ...tls(who) });
    assert.equal(hop.status, 302, hop.text);
    const redirect = String(hop.headers.location);
    assert.ok(redirect.startsWith(SDK_REDIRECT_URI), redirect);
    const query = new URL(redirect).search.slice(1);
    return query.slice(query.indexOf('code=') + 'code='.length);
  }

  /** The SDK's token form: state first, then the code with whatever followed it in the redirect. */
  function tokenForm(started: { state: string; verifier: string }, tail: string) {
    return [
      `state=${started.state}`,
      `code=${sdkFormValue(tail)}`,
      'grant_type=authorization_code',
      `code_verifier=${started.verifier}`,
      'client_id=svc',
      `redirect_uri=${sdkFormValue(SDK_REDIRECT_URI)}`,
    ].join('&');
  }

  const postToken = (body: string, headers: Record<string, string> = {}, who: Device = device) =>
    ctl.fetch(endpoints.token, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers }, body, ...tls(who) });

  it('logs in by certificate and redeems the code from a form that repeats state and carries a doubly encoded iss', async () => {
    const started = await authorize();
    const login = await ctl.fetch(`/oidc/login/cert?id=${started.id}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(SDK_LOGIN_BODY), ...tls() });
    assert.equal(login.status, 302, login.text);
    const tail = await codeTail(String(login.headers.location));
    const form = tokenForm(started, tail);
    // The shape the issue reports: `state=S&code=C&state=S&iss=https%253A…&grant_type=…`.
    assert.match(form, new RegExp(`^state=${started.state}&code=[^&]+&state=${started.state}&iss=https%253A%252F%252F`));

    const tokens = await postToken(form);
    assert.equal(tokens.status, 200, tokens.text);
    const { access_token: accessToken, refresh_token: refreshToken, expires_in: expiresIn } = tokens.json();
    assert.equal(decodeJwt(accessToken).sub, deviceId);
    assert.equal(expiresIn, 1800);
    const me = await ctl.fetch('/edge/client/v1/current-identity', { headers: { authorization: `Bearer ${accessToken}` } });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.json().data.name, 'c-sdk-device');

    // The refresh as the SDK sends it: Basic `svc:` in base64url with padding, client_id again in the form.
    const basic = `Basic ${Buffer.from('svc:').toString('base64url')}=`;
    const refreshed = await postToken(`client_id=svc&grant_type=refresh_token&refresh_token=${sdkFormValue(refreshToken)}`, { authorization: basic });
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.equal(decodeJwt(refreshed.json().access_token).sub, deviceId);
  });

  it('still refuses a token form whose repeated parameter carries two different values, naming it', async () => {
    const started = await authorize();
    const login = await ctl.fetch(`/oidc/login/cert?id=${started.id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(SDK_LOGIN_BODY), ...tls() });
    const tail = await codeTail(String(login.headers.location));
    const conflicting = await postToken(`${tokenForm(started, tail)}&client_id=other`);
    assert.equal(conflicting.status, 400, conflicting.text);
    assert.equal(conflicting.json().error, 'invalid_request');
    assert.equal(conflicting.json().error_description, 'parameter client_id is given 2 times with different values; give it once');
    // Nothing was spent by the refusal: the SDK's own form still redeems the code.
    assert.equal((await postToken(tokenForm(started, tail))).status, 200);
  });

  it('answers TOTP from the form `id=&code=` and redirects to the code as the SDK follows it', async () => {
    // A second device enrolls TOTP over its legacy certificate session, then its policy requires it.
    const totpDeviceId = (await createIdentity(ctl.running.database, { name: 'c-sdk-totp-device' })).id;
    const totpDevice = await issueClientCertificate(ctl.pki, 'c-sdk-totp-device');
    await addCertAuthenticator(ctl.running.database, totpDeviceId, totpDevice.leafPem);
    const legacy = await ctl.fetch('/edge/client/v1/authenticate?method=cert', { method: 'POST', body: SDK_LOGIN_BODY, ...tls(totpDevice) });
    assert.equal(legacy.status, 200, legacy.text);
    const session = { 'svc-session': String(legacy.headers['svc-session']) };
    const enrollment = await ctl.fetch('/edge/client/v1/current-identity/mfa', { method: 'POST', headers: session, body: {} });
    assert.equal(enrollment.status, 201, enrollment.text);
    const provisioningUrl = enrollment.json().data.provisioningUrl as string;
    const verify = await ctl.fetch('/edge/client/v1/current-identity/mfa/verify', { method: 'POST', headers: session, body: { code: totpCode(provisioningUrl, clock.now()) } });
    assert.equal(verify.status, 200, verify.text);
    await updateIdentityRow(ctl.running.database, totpDeviceId, { auth_policy_id: await createAuthPolicy(ctl.running.database, (body) => (body.secondary.requireTotp = true)) });
    clock.advance(STEP_MS);

    const started = await authorize(totpDevice);
    const login = await ctl.fetch(`/oidc/login/cert?id=${started.id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(SDK_LOGIN_BODY), ...tls(totpDevice) });
    assert.equal(login.status, 200, login.text);
    assert.equal(login.headers['totp-required'], 'true');
    assert.equal(login.json().authQueries[0].typeId, 'MFA');
    const totp = await ctl.fetch('/oidc/login/totp', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `id=${encodeURIComponent(started.id)}&code=${totpCode(provisioningUrl, clock.now())}`,
      ...tls(totpDevice),
    });
    assert.equal(totp.status, 302, totp.text);
    const tokens = await postToken(tokenForm(started, await codeTail(String(totp.headers.location), totpDevice)), {}, totpDevice);
    assert.equal(tokens.status, 200, tokens.text);
    assert.equal(decodeJwt(tokens.json().access_token).sub, totpDeviceId);
    assert.deepEqual([...(decodeJwt(tokens.json().access_token).amr as string[])].sort(), ['cert', 'totp']);
  });

  /** Every Client API call the SDK makes after login, as it spells them, with `credential` as its header. */
  async function clientCallsAsTheSdkMakesThem(credential: Record<string, string>) {
    const get = (path: string) => ctl.fetch(`/edge/client/v1${path}`, { headers: { accept: 'application/json', ...credential } });
    const ok = async (path: string) => {
      const res = await get(path);
      assert.equal(res.status, 200, `GET ${path}: ${res.text}`);
      return res.json().data;
    };
    assert.ok((await ok('/version')).version);
    assert.equal((await ok('/current-identity')).id, deviceId);
    assert.equal((await ok('/current-api-session')).identityId, deviceId);
    assert.ok(Date.parse((await ok('/current-api-session/service-updates')).lastChangeAt));
    assert.deepEqual((await ok('/current-identity/edge-routers?limit=25&offset=0')).map((router: { name: string }) => router.name), ['er-c-sdk']);
    const services = await ok('/services?configTypes=all&limit=25&offset=0');
    assert.deepEqual(services.map((service: { name: string }) => service.name), ['echo']);
    assert.deepEqual(services[0].config['echo-app.v1'].addresses, ['echo.svc']);
    assert.deepEqual(await ok('/services?configTypes=all&limit=25&offset=1'), []);
    const byName = await ok(`/services?${new URLSearchParams({ filter: 'name="echo"', configTypes: 'all' })}`);
    assert.deepEqual(byName.map((service: { id: string }) => service.id), [serviceId]);
    assert.ok(Array.isArray(await ok('/controllers?limit=25&offset=0')));
    assert.ok(Array.isArray(await ok('/external-jwt-signers?limit=25&offset=0')));

    // The session create's body is written by hand in the SDK: a space after each colon, nothing else.
    const created = await ctl.fetch('/edge/client/v1/sessions', {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', ...credential },
      body: `{"serviceId": "${serviceId}", "type": "Dial"}`,
    });
    assert.equal(created.status, 201, created.text);
    const session = created.json().data;
    assert.ok(session.token);
    assert.equal((await ok(`/sessions/${session.id}`)).id, session.id);
    const routers = await ok(`/services/${serviceId}/edge-routers?offset=0&limit=100`);
    assert.deepEqual(routers.edgeRouters.map((router: { name: string }) => router.name), ['er-c-sdk']);
  }

  it('makes every Client API call of the SDK with the Bearer token of its OIDC login', async () => {
    const started = await authorize();
    const login = await ctl.fetch(`/oidc/login/cert?id=${started.id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(SDK_LOGIN_BODY), ...tls() });
    const tokens = await postToken(tokenForm(started, await codeTail(String(login.headers.location))));
    assert.equal(tokens.status, 200, tokens.text);
    await clientCallsAsTheSdkMakesThem({ authorization: `Bearer ${tokens.json().access_token}` });
  });

  it('makes every Client API call of the SDK with the svc-session token of its legacy certificate login', async () => {
    const legacy = await ctl.fetch('/edge/client/v1/authenticate?method=cert', { method: 'POST', headers: { accept: 'application/json' }, body: { ...SDK_LOGIN_BODY, configTypes: ['all'] }, ...tls() });
    assert.equal(legacy.status, 200, legacy.text);
    await clientCallsAsTheSdkMakesThem({ 'svc-session': legacy.json().data.token });
  });
});
