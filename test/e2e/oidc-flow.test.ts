/**
 * The OIDC provider end to end with the certified openid-client, unmodified, against a real listening controller:
 * discovery, authorization with PKCE, login, code exchange, refresh, userinfo, access tokens on the Edge APIs, and
 * end session. Tokens are verified independently with jose against the published JWKS.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, customFetch, jwtVerify, decodeProtectedHeader } from 'jose';
import * as client from 'openid-client';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { caFetch, discoverClient, followCallback, loginToCallback, postLogin, startLogin } from '../helpers/oidc.js';

describe(`OIDC authorization code flow with openid-client (${testDialect})`, () => {
  let ctl: TestController;
  let config: client.Configuration;
  before(async () => {
    ctl = await startTestController();
    config = await discoverClient(ctl);
    await createIdentity(ctl.running.database, { name: 'alice', username: 'alice', password: 'alice-password' });
    await createIdentity(ctl.running.database, { name: 'root', username: 'root', password: 'root-password', isAdmin: true });
  });
  after(async () => ctl.close());

  const bearer = (path: string, token: string) => ctl.fetch(path, { headers: { authorization: `Bearer ${token}` } });

  async function tokensFor(username: string, password: string) {
    const login = await loginToCallback(ctl, config, username, password);
    assert.equal(login.status, 302);
    const tokens = await client.authorizationCodeGrant(config, login.callback, {
      pkceCodeVerifier: login.verifier,
      expectedState: login.state,
      expectedNonce: login.nonce,
    });
    return { login, tokens };
  }

  it('publishes discovery at the root and under /oidc with the bind point as issuer', async () => {
    for (const path of ['/.well-known/openid-configuration', '/oidc/.well-known/openid-configuration']) {
      const res = await ctl.fetch(path);
      assert.equal(res.status, 200);
      assert.equal(res.json().issuer, `${ctl.baseUrl}/oidc`);
      assert.deepEqual(res.json().code_challenge_methods_supported, ['S256']);
    }
    assert.equal(config.serverMetadata().issuer, `${ctl.baseUrl}/oidc`);
  });

  it('runs the whole flow: login, code exchange, refresh, userinfo and end session', async () => {
    const { login, tokens } = await tokensFor('alice', 'alice-password');
    assert.equal(login.callback.searchParams.get('iss'), `${ctl.baseUrl}/oidc`);
    assert.equal(tokens.token_type.toLowerCase(), 'bearer');
    assert.equal(tokens.expires_in, 1800);
    assert.ok(tokens.refresh_token);
    const idClaims = tokens.claims()!;
    assert.equal(idClaims.name, 'alice');
    assert.equal(idClaims.nonce, login.nonce);

    const jwks = createRemoteJWKSet(new URL(`${ctl.baseUrl}/oidc/keys`), { [customFetch]: caFetch(ctl.ca) as never });
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, { issuer: `${ctl.baseUrl}/oidc`, audience: 'svc' });
    assert.equal(protectedHeader.alg, 'ES256');
    assert.equal(payload.z_t, 'a');
    assert.equal(payload.z_ia, false);
    assert.equal(payload.client_id, 'svc');
    assert.deepEqual(payload.z_ct, []);
    assert.equal(payload.z_ice, false);
    assert.equal(payload.sub, idClaims.sub);
    assert.ok(typeof payload.z_asid === 'string' && typeof payload.jti === 'string' && typeof payload.nbf === 'number');

    const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
    assert.equal(info.name, 'alice');

    const session = await bearer('/edge/client/v1/current-api-session', tokens.access_token);
    assert.equal(session.status, 200, session.text);
    assert.equal(session.json().data.id, payload.z_asid);
    assert.equal(session.json().data.identity.name, 'alice');
    assert.equal(session.headers['expires-at'], new Date((payload.exp as number) * 1000).toISOString());
    const me = await bearer('/edge/client/v1/current-identity', tokens.access_token);
    assert.equal(me.status, 200);
    assert.equal(me.json().data.id, idClaims.sub);

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
    assert.equal((await bearer('/edge/client/v1/current-identity', refreshed.access_token)).status, 200);

    const logout = client.buildEndSessionUrl(config, { id_token_hint: refreshed.id_token!, post_logout_redirect_uri: 'http://127.0.0.1:53123/auth/logout', state: 'bye' });
    const ended = await ctl.fetch(logout.toString());
    assert.equal(ended.status, 302);
    assert.equal(new URL(String(ended.headers.location)).searchParams.get('state'), 'bye');
    for (const token of [tokens.access_token, refreshed.access_token]) {
      const res = await bearer('/edge/client/v1/current-identity', token);
      assert.equal(res.status, 401);
      assert.match(res.headerValues('www-authenticate').join(), /realm="svc-oidc" error="invalid"/);
    }
    await assert.rejects(client.refreshTokenGrant(config, refreshed.refresh_token!), (e: any) => e.error === 'invalid_grant');
    await assert.rejects(client.fetchUserInfo(config, refreshed.access_token, idClaims.sub));
  });

  it('lets an administrator use the management API with an access token, and refuses a non-admin', async () => {
    const admin = await tokensFor('root', 'root-password');
    const res = await bearer('/edge/management/v1/identities', admin.tokens.access_token);
    assert.equal(res.status, 200, res.text);
    assert.equal(decodeProtectedHeader(admin.tokens.access_token).typ, 'at+jwt');
    const user = await tokensFor('alice', 'alice-password');
    assert.equal((await bearer('/edge/management/v1/identities', user.tokens.access_token)).status, 403);
  });

  it('refuses an ID token as an API credential', async () => {
    const { tokens } = await tokensFor('alice', 'alice-password');
    const res = await bearer('/edge/client/v1/current-identity', tokens.id_token!);
    assert.equal(res.status, 401);
    assert.match(res.headerValues('www-authenticate').join(), /error="invalid"/);
  });

  it('answers wrong credentials with 401 JSON and lets the user retry the same request', async () => {
    const started = await startLogin(ctl, config);
    const wrong = await postLogin(ctl, started.authRequestId, 'alice', 'wrong-password');
    assert.equal(wrong.status, 401);
    assert.equal(wrong.json().error, 'invalid_auth');
    const right = await postLogin(ctl, started.authRequestId, 'alice', 'alice-password');
    assert.equal(right.status, 302);
    assert.ok(new URL(String(await followCallback(ctl, right.headers.location))).searchParams.get('code'));
  });

  it('serves an HTML login form to a browser and accepts its form post', async () => {
    const started = await startLogin(ctl, config);
    const page = await ctl.fetch(`/oidc/login/username?authRequestID=${started.authRequestId}`, { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.match(page.text, /<form method="post" action="\/oidc\/login\/password">/);
    assert.match(page.text, new RegExp(`value="${started.authRequestId}"`));
    const posted = await ctl.fetch('/oidc/login/password', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams({ authRequestId: started.authRequestId, username: 'alice', password: 'alice-password' }).toString(),
    });
    assert.equal(posted.status, 302);
  });
});
