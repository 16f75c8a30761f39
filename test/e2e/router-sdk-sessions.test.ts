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
import { ControlType } from '../../src/control-protocol/catalogue.js';
import { ApiSessionCheckAnswerSchema } from '../../src/control-protocol/bodies.js';
import { ControlRefusal } from '../../src/control-protocol/results.js';
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

  const check = (body: object) => er.control.request(ControlType.ApiSessionCheck, body, ApiSessionCheckAnswerSchema, 5_000);
  const refused = (code: string, pattern: RegExp) => (error: unknown) => error instanceof ControlRefusal && error.code === code && pattern.test(error.message);
  const legacyLogin = async (username: string, password: string) => {
    const res = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username, password } });
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
    return { token: res.headers['svc-session'] as string, sessionId: res.json().data.id as string };
  };
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

  describe('ApiSessionCheck', () => {
    const OTHER_FINGERPRINT = '0'.repeat(40);

    it('names the legacy session of a token, and says whether a certificate is one of its ephemeral certificates', async () => {
      const user = await createIdentity(ctl.running.database, { name: 'check-legacy', password: 'check-password-1' });
      const { token, sessionId } = await legacyLogin('check-legacy', 'check-password-1');
      const answer = await check({ legacyToken: token, fingerprint: OTHER_FINGERPRINT });
      assert.equal(answer.apiSessionId, sessionId);
      assert.equal(answer.identityId, user.id);
      assert.equal(answer.identityName, 'check-legacy');
      assert.equal(answer.legacy, true);
      assert.ok(Math.abs(answer.createdAt - Date.now()) < 60_000, 'createdAt is the login, in ms since the epoch');
      assert.equal(answer.certificateBound, false);
      const fingerprint = await ephemeral({ 'svc-session': token });
      assert.equal((await check({ legacyToken: token, fingerprint })).certificateBound, true);
    });

    it("names an OIDC session by its id, bound to the identity's certificate authenticator", async () => {
      const identity = await createIdentity(ctl.running.database, { name: 'check-oidc', password: 'check-password-2' });
      const cert = await issueClientCertificate(ctl.pki, 'check-oidc');
      await addCertAuthenticator(ctl.running.database, identity.id, cert.leafPem);
      const { accessToken } = await passwordLoginTokens(ctl, 'check-oidc', 'check-password-2');
      const apiSessionId = decodeJwt(accessToken).z_asid as string;
      const answer = await check({ apiSessionId, fingerprint: cert.fingerprint });
      assert.deepEqual({ ...answer, createdAt: 0 }, { apiSessionId, identityId: identity.id, identityName: 'check-oidc', legacy: false, createdAt: 0, certificateBound: true });
      assert.equal((await check({ apiSessionId, fingerprint: OTHER_FINGERPRINT })).certificateBound, false);
    });

    it('refuses with NOT_FOUND a token or session that names nothing live: unknown, ended, expired, revoked, identity disabled', async () => {
      await createIdentity(ctl.running.database, { name: 'check-gone', password: 'check-password-3' });
      const notLive = refused('NOT_FOUND', /names no live API session/);
      await assert.rejects(check({ legacyToken: 'not-a-token-of-anyone', fingerprint: OTHER_FINGERPRINT }), notLive, 'unknown token');
      await assert.rejects(check({ apiSessionId: 'no-such-session', fingerprint: OTHER_FINGERPRINT }), notLive, 'unknown id');

      const ended = await legacyLogin('check-gone', 'check-password-3');
      await check({ legacyToken: ended.token, fingerprint: OTHER_FINGERPRINT }); // positive control
      assert.equal((await ctl.fetch(`${CLIENT}/current-api-session`, { method: 'DELETE', headers: { 'svc-session': ended.token } })).status, 200);
      await assert.rejects(check({ legacyToken: ended.token, fingerprint: OTHER_FINGERPRINT }), notLive, 'logged out');

      const idle = await legacyLogin('check-gone', 'check-password-3');
      await check({ legacyToken: idle.token, fingerprint: OTHER_FINGERPRINT });
      const longAgo = new Date(Date.now() - 2 * 3_600_000).toISOString();
      await ctl.running.database.db.updateTable('api_sessions').set({ last_activity_at: longAgo }).where('id', '=', idle.sessionId).execute();
      await assert.rejects(check({ legacyToken: idle.token, fingerprint: OTHER_FINGERPRINT }), notLive, 'idle past the session timeout');

      const oidc = await passwordLoginTokens(ctl, 'check-gone', 'check-password-3');
      const apiSessionId = decodeJwt(oidc.accessToken).z_asid as string;
      await check({ apiSessionId, fingerprint: OTHER_FINGERPRINT });
      assert.equal((await postForm(ctl, '/oidc/revoke', { token: oidc.refreshToken, client_id: 'svc' })).status, 200);
      await assert.rejects(check({ apiSessionId, fingerprint: OTHER_FINGERPRINT }), notLive, 'OIDC session revoked');

      const user = await createIdentity(ctl.running.database, { name: 'check-disabled', password: 'check-password-4' });
      const disabled = await legacyLogin('check-disabled', 'check-password-4');
      assert.equal((await admin.post(`/identities/${user.id}/disable`, { durationMinutes: 0 })).status, 200);
      await assert.rejects(check({ legacyToken: disabled.token, fingerprint: OTHER_FINGERPRINT }), notLive, 'identity disabled');
      assert.equal((await admin.post(`/identities/${user.id}/enable`, {})).status, 200);
      assert.equal((await check({ legacyToken: disabled.token, fingerprint: OTHER_FINGERPRINT })).apiSessionId, disabled.sessionId, 'enabled again: live');
    });

    it('refuses malformed checks by field, and never writes a legacy token into a log line', async () => {
      await createIdentity(ctl.running.database, { name: 'check-bad', password: 'check-password-5' });
      const { token } = await legacyLogin('check-bad', 'check-password-5');
      const bad = (pattern: RegExp) => refused('BAD_MESSAGE', pattern);
      await assert.rejects(check({ legacyToken: token, apiSessionId: 'x', fingerprint: OTHER_FINGERPRINT }), bad(/exactly one of body.legacyToken and body.apiSessionId/));
      await assert.rejects(check({ fingerprint: OTHER_FINGERPRINT }), bad(/exactly one of body.legacyToken and body.apiSessionId/));
      await assert.rejects(check({ legacyToken: token, fingerprint: 'AB:CD' }), bad(/body.fingerprint/));
      await assert.rejects(check({ legacyToken: `${token}-wrong`, fingerprint: OTHER_FINGERPRINT }), refused('NOT_FOUND', /legacy token/));
      await check({ legacyToken: token, fingerprint: OTHER_FINGERPRINT });
      assert.ok(lines.some((line) => line.includes('BAD_MESSAGE')), 'the refusals are logged');
      assert.equal(lines.filter((line) => line.includes(token)).length, 0, 'no log line holds the token');
    });
  });
});
