/**
 * The OIDC login as the public C SDK sends it, request by request, byte for byte where the SDK's shape matters (issue
 * 40, point 1; decision 0055). The SDK (library/oidc.c of ziti-sdk-c, brand renamed to `svc`):
 * - POSTs the authorization endpoint with every parameter in the query (adding `audience`) and no body;
 * - cuts the auth request id out of the redirect after `authRequestID=` and logs in at `/oidc/login/cert?id=<id>` with
 *   its JSON `sdkInfo`/`envInfo` body (or answers TOTP at `/oidc/login/totp` with the form `id=&code=`);
 * - follows the login's redirect by its path and query, and takes everything after `code=` in the next redirect as
 *   the code, so its token form carries `state` twice and a stray, doubly encoded `iss`;
 * - refreshes with `Authorization: Basic` of `svc:` (base64url, padded) beside `client_id` in the form.
 * Each shape is sent here as the SDK sends it, and the flow must end in tokens that work on the Client API.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { manualClock } from '../../src/shared/clock.js';
import { startTestController, type TestController } from '../helpers/controller.js';
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

describe(`the public C SDK's OIDC requests, as it sends them (${testDialect})`, () => {
  const clock = manualClock(new Date());
  let ctl: TestController;
  let device: { certPem: string; keyPem: string };
  let deviceId: string;
  let endpoints: { authorization: string; token: string };

  before(async () => {
    ctl = await startTestController({ clock });
    deviceId = (await createIdentity(ctl.running.database, { name: 'c-sdk-device' })).id;
    const issued = await issueClientCertificate(ctl.pki, 'c-sdk-device');
    await addCertAuthenticator(ctl.running.database, deviceId, issued.leafPem);
    device = issued;
    const discovery = await ctl.fetch('/oidc/.well-known/openid-configuration', { headers: { accept: 'application/json' } });
    assert.equal(discovery.status, 200, discovery.text);
    endpoints = { authorization: discovery.json().authorization_endpoint, token: discovery.json().token_endpoint };
  });
  after(async () => ctl.close());

  const tls = () => ({ cert: device.certPem, key: device.keyPem });

  /** Authorization POST with the query only, then the id cut out of the redirect as the SDK cuts it. */
  async function authorize() {
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
    const res = await ctl.fetch(`${endpoints.authorization}?${query}`, { method: 'POST', headers: { accept: 'application/json' }, ...tls() });
    assert.equal(res.status, 302, res.text);
    const location = String(res.headers.location);
    const from = location.indexOf('authRequestID=') + 'authRequestID='.length;
    const end = location.indexOf('&', from);
    return { verifier, state, id: location.slice(from, end < 0 ? undefined : end) };
  }

  /** The login redirect followed by its path and query, and the code the SDK takes: all after `code=`. */
  async function codeTail(loginLocation: string) {
    const target = new URL(loginLocation, ctl.baseUrl);
    const hop = await ctl.fetch(`${target.pathname}${target.search}`, { ...tls() });
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

  const postToken = (body: string, headers: Record<string, string> = {}) =>
    ctl.fetch(endpoints.token, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers }, body, ...tls() });

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
    // The device enrolls TOTP over its legacy certificate session, then its policy requires it.
    const legacy = await ctl.fetch('/edge/client/v1/authenticate?method=cert', { method: 'POST', body: SDK_LOGIN_BODY, ...tls() });
    assert.equal(legacy.status, 200, legacy.text);
    const session = { 'svc-session': String(legacy.headers['svc-session']) };
    const enrollment = await ctl.fetch('/edge/client/v1/current-identity/mfa', { method: 'POST', headers: session, body: {} });
    assert.equal(enrollment.status, 201, enrollment.text);
    const provisioningUrl = enrollment.json().data.provisioningUrl as string;
    const verify = await ctl.fetch('/edge/client/v1/current-identity/mfa/verify', { method: 'POST', headers: session, body: { code: totpCode(provisioningUrl, clock.now()) } });
    assert.equal(verify.status, 200, verify.text);
    await updateIdentityRow(ctl.running.database, deviceId, { auth_policy_id: await createAuthPolicy(ctl.running.database, (body) => (body.secondary.requireTotp = true)) });
    clock.advance(STEP_MS);

    try {
      const started = await authorize();
      const login = await ctl.fetch(`/oidc/login/cert?id=${started.id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(SDK_LOGIN_BODY), ...tls() });
      assert.equal(login.status, 200, login.text);
      assert.equal(login.headers['totp-required'], 'true');
      assert.equal(login.json().authQueries[0].typeId, 'MFA');
      const totp = await ctl.fetch('/oidc/login/totp', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `id=${encodeURIComponent(started.id)}&code=${totpCode(provisioningUrl, clock.now())}`,
        ...tls(),
      });
      assert.equal(totp.status, 302, totp.text);
      const tokens = await postToken(tokenForm(started, await codeTail(String(totp.headers.location))));
      assert.equal(tokens.status, 200, tokens.text);
      assert.deepEqual([...(decodeJwt(tokens.json().access_token).amr as string[])].sort(), ['cert', 'totp']);
    } finally {
      await updateIdentityRow(ctl.running.database, deviceId, { auth_policy_id: 'default' });
    }
  });
});
