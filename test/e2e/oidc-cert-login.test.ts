/**
 * The OIDC login with the TLS client certificate (`POST /oidc/login/cert`), completed to tokens with openid-client:
 * a certificate the controller's PKI issued and registered as a cert authenticator logs its identity in; an
 * unregistered one is refused and the request stays open.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { addCertAuthenticator, createIdentity, issueClientCertificate } from '../helpers/fixtures.js';
import { discoverClient, followCallback, startLogin } from '../helpers/oidc.js';

describe(`OIDC login with a client certificate (${testDialect})`, () => {
  let ctl: TestController;
  let config: client.Configuration;
  let identityId: string;
  let registered: { certPem: string; keyPem: string; leafPem: string };
  let unregistered: { certPem: string; keyPem: string };
  before(async () => {
    ctl = await startTestController();
    config = await discoverClient(ctl);
    identityId = (await createIdentity(ctl.running.database, { name: 'device-1' })).id;
    registered = await issueClientCertificate(ctl.pki, 'device-1');
    await addCertAuthenticator(ctl.running.database, identityId, registered.leafPem);
    unregistered = await issueClientCertificate(ctl.pki, 'stranger');
  });
  after(async () => ctl.close());

  /** The authorization request made with the certificate presented: the default method is then `cert`. */
  const authorizeWith = (cert: { certPem: string; keyPem: string }) => startLogin(ctl, config, {}, cert);

  const postCertLogin = (authRequestId: string, cert: { certPem: string; keyPem: string }) =>
    ctl.fetch('/oidc/login/cert', { method: 'POST', body: { authRequestId }, cert: cert.certPem, key: cert.keyPem });

  it('logs in with a registered client certificate and completes the flow to tokens', async () => {
    const started = await authorizeWith(registered);
    assert.equal(started.location.pathname, '/oidc/login/cert');
    const login = await postCertLogin(started.authRequestId, registered);
    assert.equal(login.status, 302, login.text);
    const tokens = await client.authorizationCodeGrant(config, new URL(String(await followCallback(ctl, login.headers.location))), { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce });
    const claims = decodeJwt(tokens.access_token);
    assert.equal(claims.sub, identityId);
    assert.deepEqual(claims.amr, ['cert']);
    assert.ok(tokens.refresh_token);
    const me = await ctl.fetch('/edge/client/v1/current-identity', { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.json().data.name, 'device-1');
  });

  it('refuses an unregistered certificate and no certificate, leaving the request open for a retry', async () => {
    const started = await authorizeWith(registered);
    const stranger = await postCertLogin(started.authRequestId, unregistered);
    assert.equal(stranger.status, 401);
    assert.equal(stranger.json().error, 'invalid_auth');
    const none = await ctl.fetch('/oidc/login/cert', { method: 'POST', body: { authRequestId: started.authRequestId } });
    assert.equal(none.status, 401);
    const retry = await postCertLogin(started.authRequestId, registered);
    assert.equal(retry.status, 302);
  });
});
