/**
 * The controller's side of SDK traffic through routers (issue 42): what access tokens tell a router about the
 * certificates of their session (`z_cfs`), and the ApiSessionCheck a router asks on its control channel when an
 * SDK's Hello carries a legacy token or a certificate the token does not list. A real controller listening on
 * `ctrl.listener`, a router enrolled through the API and run in this process over real mutual TLS.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import type { RunningRouter } from '../../src/router/run.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { addCertAuthenticator, createIdentity, issueClientCertificate } from '../helpers/fixtures.js';
import { managementClient, type ManagementClient } from '../helpers/management.js';
import { discoverClient, followCallback, passwordLoginTokens, postForm, startLogin } from '../helpers/oidc.js';
import { opensslFingerprint, opensslKeyAndCsr } from '../helpers/openssl.js';
import { enrolledRouter, eventually, runRouterInProcess, type EnrolledRouter } from '../helpers/routers.js';

const CLIENT = '/edge/client/v1';

describe(`SDK sessions as routers see them (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let router: EnrolledRouter;
  let er: RunningRouter;
  let lines: string[];

  before(async () => {
    lines = [];
    ctl = await startTestController({ extraPorts: 1, logLines: lines, modify: (config, ports) => (config.ctrl = { listener: `tls:127.0.0.1:${ports[1]}` }) });
    admin = managementClient(ctl, await ctl.adminToken());
    router = await enrolledRouter(admin, (token, body) => ctl.fetch(`${CLIENT}/enroll?method=erott&token=${token}`, { method: 'POST', body }), 'er-sdk-sessions', {
      endpoints: [`tls:127.0.0.1:${ctl.ports[1]}`],
    });
    er = (await runRouterInProcess(router)).running;
    if (!(await eventually(() => er.control.connected))) throw new Error('the router did not connect');
  });
  after(async () => {
    await er.stop();
    router.remove();
    await ctl.close();
  });

  const refresh = async (refreshToken: string) => {
    const res = await postForm(ctl, '/oidc/token', { grant_type: 'refresh_token', client_id: 'svc', refresh_token: refreshToken });
    if (res.status !== 200) throw new Error(`refresh failed: ${res.status} ${res.text}`);
    return { accessToken: res.json().access_token as string, refreshToken: res.json().refresh_token as string };
  };
  const ephemeral = async (headers: Record<string, string>) => {
    const res = await ctl.fetch(`${CLIENT}/current-api-session/certificates`, { method: 'POST', headers, body: { csr: opensslKeyAndCsr('sdk-ephemeral').csrPem } });
    if (res.status !== 201) throw new Error(`ephemeral certificate: ${res.status} ${res.text}`);
    return opensslFingerprint(res.json().data.certificate as string);
  };

  it('lists the OIDC issuer of access tokens and the edge API issuer of session tokens in the trust state', async () => {
    assert.ok(await eventually(() => er.trust.current !== undefined));
    const discovery = (await ctl.fetch('/oidc/.well-known/openid-configuration')).json();
    const issuers = er.trust.current!.issuers;
    assert.ok(issuers.includes(discovery.issuer), `${discovery.issuer} in ${issuers.join(', ')}`);
    assert.ok(issuers.includes(ctl.baseUrl), `${ctl.baseUrl} (the iss of session tokens) in ${issuers.join(', ')}`);
  });

  describe('z_cfs in access tokens', () => {
    it("lists the login certificate's fingerprint in the access token of a certificate login, and again after a refresh", async () => {
      const config = await discoverClient(ctl);
      const identity = await createIdentity(ctl.running.database, { name: 'cfs-device' });
      const cert = await issueClientCertificate(ctl.pki, 'cfs-device');
      await addCertAuthenticator(ctl.running.database, identity.id, cert.leafPem);
      const started = await startLogin(ctl, config, { scope: 'openid offline_access' }, cert);
      const login = await ctl.fetch('/oidc/login/cert', { method: 'POST', body: { authRequestId: started.authRequestId }, cert: cert.certPem, key: cert.keyPem });
      assert.equal(login.status, 302, login.text);
      const tokens = await client.authorizationCodeGrant(config, new URL(String(await followCallback(ctl, login.headers.location))), {
        pkceCodeVerifier: started.verifier,
        expectedState: started.state,
        expectedNonce: started.nonce,
      });
      assert.match(cert.fingerprint, /^[0-9a-f]{40}$/);
      assert.deepEqual(decodeJwt(tokens.access_token).z_cfs, [cert.fingerprint]);
      const refreshed = await refresh(tokens.refresh_token as string);
      assert.deepEqual(decodeJwt(refreshed.accessToken).z_cfs, [cert.fingerprint]);
    });

    it('gives a password login an empty list, and the ephemeral certificate of the OIDC session after the next refresh', async () => {
      await createIdentity(ctl.running.database, { name: 'cfs-user', password: 'cfs-password-1' });
      const first = await passwordLoginTokens(ctl, 'cfs-user', 'cfs-password-1');
      assert.deepEqual(decodeJwt(first.accessToken).z_cfs, []);
      const fingerprint = await ephemeral({ authorization: `Bearer ${first.accessToken}` });
      const second = await refresh(first.refreshToken);
      assert.deepEqual(decodeJwt(second.accessToken).z_cfs, [fingerprint]);
    });
  });
});
