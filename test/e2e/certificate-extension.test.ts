/**
 * Certificate authenticator extension end to end (spec: Client certificate extension state table), with keys and
 * CSRs made by `openssl`: an identity enrolled by ott logs in by certificate, extends its certificate over mutual
 * TLS (the old one stays active), verifies the new one (only the new one logs in from then on); an administrator's
 * request-extend shows on the session, legacy and OIDC, in the OIDC tokens' claims and on the management
 * authenticator; an expired certificate the controller issued can still be extended. Every refused request is shown
 * to change nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { recordChange } from '../../src/persistence/repositories/authorization-changes.js';
import { generateKeyPair, issueCertificate, loadCertificateAuthority, privateKeyToPem } from '../../src/pki/index.js';
import { newEntityId } from '../../src/shared/random.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createEnrollment } from '../helpers/enrollment.js';
import { addCertAuthenticator, createIdentity } from '../helpers/fixtures.js';
import { managementClient } from '../helpers/management.js';
import { discoverClient, followCallback, loginToCallback, startLogin } from '../helpers/oidc.js';
import { brokenSignature, opensslCsr, opensslFingerprint, opensslKeyAndCsr } from '../helpers/openssl.js';
import { makeOpensslPki } from '../helpers/openssl-pki.js';

const CLIENT = '/edge/client/v1';

describe(`certificate authenticator extension (${testDialect})`, () => {
  let ctl: TestController;
  before(async () => {
    ctl = await startTestController();
  });
  after(async () => ctl.close());

  type Tls = { cert: string; key: string };
  /** An identity enrolled by ott with an openssl key; its certificate, key and cert authenticator id. */
  const enrolledDevice = async (name: string) => {
    const identity = await createIdentity(ctl.running.database, { name });
    const enrollment = await createEnrollment(ctl, { identityId: identity.id, method: 'ott' });
    const { keyPem, csrPem } = opensslKeyAndCsr(name);
    const res = await ctl.fetch(`${CLIENT}/enroll/ott?token=${enrollment.token}`, { method: 'POST', headers: { 'content-type': 'application/x-pem-file' }, body: csrPem });
    if (res.status !== 200) throw new Error(`enrollment failed: ${res.status} ${res.text}`);
    const tls: Tls = { cert: res.json().data.cert, key: keyPem };
    const token = await certLogin(tls).then((r) => r.headers['svc-session'] as string);
    const authenticators = (await ctl.fetch(`${CLIENT}/current-identity/authenticators`, { headers: { 'svc-session': token } })).json().data;
    return { identity, tls, token, authenticatorId: authenticators[0].id as string };
  };
  const certLogin = (tls: Tls) => ctl.fetch(`${CLIENT}/authenticate?method=cert`, { method: 'POST', body: {}, ...tls });
  const extend = (id: string, token: string, body: unknown, tls?: Tls) =>
    ctl.fetch(`${CLIENT}/current-identity/authenticators/${id}/extend`, { method: 'POST', headers: { 'svc-session': token }, body: body as object, ...(tls ?? {}) });
  const verify = (id: string, token: string, body: unknown) =>
    ctl.fetch(`${CLIENT}/current-identity/authenticators/${id}/extend-verify`, { method: 'POST', headers: { 'svc-session': token }, body: body as object });
  const session = async (token: string) => (await ctl.fetch(`${CLIENT}/current-api-session`, { headers: { 'svc-session': token } })).json().data;
  const storedFingerprint = async (authenticatorId: string) =>
    (await ctl.running.database.db.selectFrom('authenticators').select('cert_fingerprint').where('id', '=', authenticatorId).executeTakeFirstOrThrow()).cert_fingerprint;

  it('extends with a new key: the old certificate stays active until extend-verify, then only the new one logs in', async () => {
    const device = await enrolledDevice('extend-device');
    assert.equal((await session(device.token)).isCertExtendable, true, 'a certificate the controller issued is extendable');

    const rolled = opensslKeyAndCsr('extend-device');
    const res = await extend(device.authenticatorId, device.token, { clientCertCsr: rolled.csrPem }, device.tls);
    assert.equal(res.status, 200, res.text);
    const { ca, clientCert } = res.json().data;
    assert.match(ca, /BEGIN CERTIFICATE/);
    const newTls = { cert: clientCert, key: rolled.keyPem };
    assert.equal((await certLogin(device.tls)).status, 200, 'the old certificate remains active');
    assert.equal((await certLogin(newTls)).status, 401, 'the new certificate is not active before verify');

    const wrong = await verify(device.authenticatorId, device.token, { clientCert: device.tls.cert });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.json().error.code, 'INVALID_CLIENT_CERT');
    assert.equal(wrong.json().error.cause.field, 'clientCert');
    assert.equal(await storedFingerprint(device.authenticatorId), opensslFingerprint(device.tls.cert), 'a wrong verify changes nothing');

    const ok = await verify(device.authenticatorId, device.token, { clientCert });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(await storedFingerprint(device.authenticatorId), opensslFingerprint(clientCert));
    assert.equal((await certLogin(newTls)).status, 200, 'new connections use the new certificate');
    assert.equal((await certLogin(device.tls)).status, 401, 'the old certificate is refused');
    const again = await verify(device.authenticatorId, device.token, { clientCert });
    assert.equal(again.status, 400, 'nothing is pending any more');
  });

  it("shows an administrator's request-extend (with rollKeys) on the holder's session and login, until it verifies", async () => {
    const device = await enrolledDevice('requested-device');
    const admin = managementClient(ctl, await ctl.adminToken());
    const requested = await admin.post(`/authenticators/${device.authenticatorId}/request-extend`, { rollKeys: true });
    assert.equal(requested.status, 200, requested.text);
    const flags = await session(device.token);
    assert.deepEqual([flags.isCertExtendable, flags.isCertExtendRequested, flags.isCertKeyRollRequested], [true, true, true]);
    const login = await certLogin(device.tls);
    assert.equal(login.headers['svc-authenticator-extend-requested'], 'true');
    assert.equal(login.json().data.isCertExtendRequested, true);

    const rolled = opensslKeyAndCsr('requested-device');
    const { clientCert } = (await extend(device.authenticatorId, device.token, { clientCertCsr: rolled.csrPem }, device.tls)).json().data;
    assert.equal((await verify(device.authenticatorId, device.token, { clientCert })).status, 200);
    const cleared = await session(device.token);
    assert.deepEqual([cleared.isCertExtendRequested, cleared.isCertKeyRollRequested], [false, false]);

    const passwordAuthenticator = (await admin.get(`/authenticators?filter=${encodeURIComponent('method = "updb"')}`)).json().data[0].id;
    const refused = await admin.post(`/authenticators/${passwordAuthenticator}/request-extend`, { rollKeys: false });
    assert.equal(refused.status, 400);
    assert.equal(refused.json().error.code, 'AUTHENTICATOR_CANNOT_BE_EXTENDED');
    assert.equal((await admin.post(`/authenticators/${newEntityId()}/request-extend`, {})).status, 404);
    assert.equal((await managementClient(ctl, device.token).post(`/authenticators/${device.authenticatorId}/request-extend`, {})).status, 403);
  });

  it('refuses extension without the authenticator\'s own certificate over TLS, of another identity\'s authenticator, or with a bad CSR', async () => {
    const device = await enrolledDevice('refusal-device');
    const other = await enrolledDevice('other-device');
    const csr = opensslKeyAndCsr('refusal-device').csrPem;
    const cases: Array<{ name: string; res: () => Promise<{ status: number; json(): any }>; status: number; code: string; field?: string }> = [
      { name: 'no client certificate', res: () => extend(device.authenticatorId, device.token, { clientCertCsr: csr }), status: 401, code: 'UNAUTHORIZED' },
      { name: "another identity's certificate", res: () => extend(device.authenticatorId, device.token, { clientCertCsr: csr }, other.tls), status: 401, code: 'UNAUTHORIZED' },
      { name: "another identity's authenticator", res: () => extend(other.authenticatorId, device.token, { clientCertCsr: csr }, device.tls), status: 404, code: 'NOT_FOUND' },
      { name: 'weak key', res: () => extend(device.authenticatorId, device.token, { clientCertCsr: opensslKeyAndCsr('x', [], 'rsa1024').csrPem }, device.tls), status: 400, code: 'MISSING_OR_INVALID_CSR', field: 'clientCertCsr' },
      { name: 'bad signature', res: () => extend(device.authenticatorId, device.token, { clientCertCsr: brokenSignature(csr) }, device.tls), status: 400, code: 'MISSING_OR_INVALID_CSR', field: 'clientCertCsr' },
      { name: 'missing CSR', res: () => extend(device.authenticatorId, device.token, {}, device.tls), status: 400, code: 'COULD_NOT_VALIDATE' },
      { name: 'verify with nothing pending', res: () => verify(device.authenticatorId, device.token, { clientCert: device.tls.cert }), status: 400, code: 'INVALID_CLIENT_CERT', field: 'clientCert' },
      { name: 'verify with no PEM', res: () => verify(device.authenticatorId, device.token, { clientCert: 'junk' }), status: 400, code: 'INVALID_CLIENT_CERT', field: 'clientCert' },
    ];
    for (const c of cases) {
      const res = await c.res();
      assert.equal(res.status, c.status, `${c.name}: ${JSON.stringify(res.json())}`);
      assert.equal(res.json().error.code, c.code, c.name);
      if (c.field) assert.equal(res.json().error.cause.field, c.field, c.name);
    }
    const pending = await ctl.running.database.db.selectFrom('authenticators').select('unverified_cert_fingerprint').where('id', 'in', [device.authenticatorId, other.authenticatorId]).execute();
    assert.deepEqual(pending.map((row) => row.unverified_cert_fingerprint), [null, null], 'no extension was issued');
  });

  it('refuses to extend a certificate the controller did not issue (400 AUTHENTICATOR_CANNOT_BE_EXTENDED)', async () => {
    const device = await enrolledDevice('foreign-device');
    // As a third-party CA enrollment leaves it: the same certificate, not issued by the network.
    await ctl.running.database.db.updateTable('authenticators').set({ is_issued_by_network: false }).where('id', '=', device.authenticatorId).execute();
    await recordChange(ctl.running.database, 'identity', device.identity.id);
    assert.equal((await session(device.token)).isCertExtendable, false);
    const res = await extend(device.authenticatorId, device.token, { clientCertCsr: opensslKeyAndCsr('foreign-device').csrPem }, device.tls);
    assert.equal(res.status, 400);
    assert.equal(res.json().error.code, 'AUTHENTICATOR_CANNOT_BE_EXTENDED');
    assert.match(res.json().error.message, /not issued by this controller/);
  });

  /** Tokens of an OIDC login with the client certificate `tls` (POST /oidc/login/cert), completed by openid-client. */
  const oidcCertLogin = async (config: client.Configuration, tls: Tls) => {
    const started = await startLogin(ctl, config, {}, { certPem: tls.cert, keyPem: tls.key });
    const login = await ctl.fetch('/oidc/login/cert', { method: 'POST', body: { authRequestId: started.authRequestId }, ...tls });
    assert.equal(login.status, 302, login.text);
    const callback = new URL(String(await followCallback(ctl, login.headers.location)));
    return client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce });
  };
  const bearerSession = async (accessToken: string) => {
    const res = await ctl.fetch(`${CLIENT}/current-api-session`, { headers: { authorization: `Bearer ${accessToken}` } });
    assert.equal(res.status, 200, res.text);
    return res.json().data;
  };
  const flagsOf = (view: any) => [view.isCertExtendable, view.isCertExtendRequested, view.isCertKeyRollRequested];
  const claimFlags = (token: string) => {
    const claims = decodeJwt(token);
    return [claims.z_ice, claims.z_cer, claims.z_ckrr];
  };

  it("records the login's authenticator on an OIDC session: request-extend shows on its next request and in its next tokens", async () => {
    const config = await discoverClient(ctl);
    const device = await enrolledDevice('oidc-extend-device');
    const tokens = await oidcCertLogin(config, device.tls);
    const view = await bearerSession(tokens.access_token);
    assert.equal(view.authMethod, 'cert');
    assert.equal(view.authenticatorId, device.authenticatorId, 'the session names the certificate authenticator it logged in with');
    assert.equal(view.ipAddress, '127.0.0.1');
    assert.deepEqual(flagsOf(view), [true, false, false]);
    assert.deepEqual(claimFlags(tokens.access_token), [true, false, false]);
    assert.equal(decodeJwt(tokens.access_token).z_authid, device.authenticatorId);

    const admin = managementClient(ctl, await ctl.adminToken());
    assert.equal((await admin.post(`/authenticators/${device.authenticatorId}/request-extend`, { rollKeys: true })).status, 200);
    // The next request, with the same access token and the same legacy token, reads the new flags.
    assert.deepEqual(flagsOf(await bearerSession(tokens.access_token)), [true, true, true], 'Bearer');
    assert.deepEqual(flagsOf(await session(device.token)), [true, true, true], 'legacy');
    assert.deepEqual(claimFlags(tokens.access_token), [true, false, false], 'a token already issued is unchanged');
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
    assert.deepEqual(claimFlags(refreshed.access_token), [true, true, true], 'the next tokens carry the request');
    assert.equal((await bearerSession(refreshed.access_token)).authenticatorId, device.authenticatorId, 'a refresh keeps the authenticator');

    const rolled = opensslKeyAndCsr('oidc-extend-device');
    const { clientCert } = (await extend(device.authenticatorId, device.token, { clientCertCsr: rolled.csrPem }, device.tls)).json().data;
    assert.equal((await verify(device.authenticatorId, device.token, { clientCert })).status, 200);
    assert.deepEqual(flagsOf(await bearerSession(refreshed.access_token)), [true, false, false], 'a verified extension clears the request');
  });

  it('records the password authenticator of an OIDC password login (not extendable)', async () => {
    const config = await discoverClient(ctl);
    const user = await createIdentity(ctl.running.database, { name: 'oidc-password-user', password: 'plain-password' });
    const { callback, verifier, state, nonce } = await loginToCallback(ctl, config, 'oidc-password-user', 'plain-password');
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
    const updb = await ctl.running.database.db.selectFrom('authenticators').select('id').where('identity_id', '=', user.id).where('method', '=', 'updb').executeTakeFirstOrThrow();
    const view = await bearerSession(tokens.access_token);
    assert.deepEqual([view.authMethod, view.authenticatorId], ['password', updb.id]);
    assert.deepEqual(flagsOf(view), [false, false, false]);
    assert.deepEqual(claimFlags(tokens.access_token), [false, false, false]);
    assert.equal(decodeJwt(tokens.access_token).z_authid, updb.id);
  });

  it("shows the management authenticator's request-extend fields, cleared by extend-verify, and whether it rolled the key", async () => {
    const device = await enrolledDevice('managed-device');
    const admin = managementClient(ctl, await ctl.adminToken());
    const detail = async () => {
      const res = await admin.get(`/authenticators/${device.authenticatorId}`);
      assert.equal(res.status, 200, res.text);
      const { isExtendRequested, isKeyRollRequested, extendRequestedAt, lastExtendRolledKeys } = res.json().data;
      return { isExtendRequested, isKeyRollRequested, extendRequestedAt, lastExtendRolledKeys };
    };
    assert.deepEqual(await detail(), { isExtendRequested: false, isKeyRollRequested: false, extendRequestedAt: null, lastExtendRolledKeys: false });

    const asked = Date.now();
    assert.equal((await admin.post(`/authenticators/${device.authenticatorId}/request-extend`, { rollKeys: true })).status, 200);
    const requested = await detail();
    assert.deepEqual([requested.isExtendRequested, requested.isKeyRollRequested, requested.lastExtendRolledKeys], [true, true, false]);
    const at = Date.parse(requested.extendRequestedAt);
    assert.ok(at >= asked - 1000 && at <= Date.now() + 1000, `extendRequestedAt ${requested.extendRequestedAt} is when it was asked`);

    const rolled = opensslKeyAndCsr('managed-device');
    const first = (await extend(device.authenticatorId, device.token, { clientCertCsr: rolled.csrPem }, device.tls)).json().data.clientCert;
    assert.equal((await detail()).isExtendRequested, true, 'an extension not yet verified leaves the request');
    assert.equal((await verify(device.authenticatorId, device.token, { clientCert: first })).status, 200);
    assert.deepEqual(await detail(), { isExtendRequested: false, isKeyRollRequested: false, extendRequestedAt: null, lastExtendRolledKeys: true });

    // Extending again with the same key: the key did not roll.
    const current = { cert: first, key: rolled.keyPem };
    const same = await extend(device.authenticatorId, device.token, { clientCertCsr: opensslCsr(rolled.keyPem, 'managed-device') }, current);
    assert.equal(same.status, 200, same.text);
    assert.equal((await verify(device.authenticatorId, device.token, { clientCert: same.json().data.clientCert })).status, 200);
    assert.equal((await detail()).lastExtendRolledKeys, false);
  });

  it('extends an expired certificate the controller issued, and still refuses an expired one from another CA', async () => {
    const user = await createIdentity(ctl.running.database, { name: 'expired-holder', password: 'plain-password' });
    const login = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: 'expired-holder', password: 'plain-password' } });
    const token = login.headers['svc-session'] as string;
    // Issued by the controller's signing CA two days ago for one hour: expired a day and more ago (times from now).
    const issuer = await loadCertificateAuthority({ cert: ctl.pki.intermediateCert, key: ctl.pki.intermediateKey });
    const keys = await generateKeyPair();
    const twoDaysAgo = { now: () => new Date(Date.now() - 2 * 86_400_000) };
    const leaf = await issueCertificate({ profile: 'client', publicKey: keys.publicKey, subject: { commonName: user.id }, validityMs: 3_600_000, issuer, clock: twoDaysAgo });
    assert.ok(leaf.notAfter.getTime() < Date.now(), 'the certificate has expired');
    const expired: Tls = { cert: `${leaf.toString('pem')}\n${issuer.chainPems.join('')}`, key: await privateKeyToPem(keys.privateKey) };
    const authenticatorId = await addCertAuthenticator(ctl.running.database, user.id, leaf.toString('pem'));

    const renewed = opensslKeyAndCsr('expired-holder');
    const res = await extend(authenticatorId, token, { clientCertCsr: renewed.csrPem }, expired);
    assert.equal(res.status, 200, res.text);
    const { clientCert } = res.json().data;
    assert.equal((await verify(authenticatorId, token, { clientCert })).status, 200);
    assert.equal((await certLogin({ cert: clientCert, key: renewed.keyPem })).status, 200, 'the renewed certificate logs in');

    // Expired too, but from a CA the controller does not trust: its chain is not otherwise valid.
    const foreignPki = makeOpensslPki('Foreign');
    try {
      const stranger = await createIdentity(ctl.running.database, { name: 'foreign-holder', password: 'plain-password' });
      const strangerToken = (await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: 'foreign-holder', password: 'plain-password' } })).headers['svc-session'] as string;
      const foreign = foreignPki.client(stranger.id, { days: -1 });
      const foreignId = await addCertAuthenticator(ctl.running.database, stranger.id, foreign.certPem);
      const refused = await extend(foreignId, strangerToken, { clientCertCsr: opensslKeyAndCsr('foreign-holder').csrPem }, { cert: `${foreign.certPem}${foreignPki.intermediate.certPem}`, key: foreign.keyPem });
      assert.equal(refused.status, 401, refused.text);
      const pending = await ctl.running.database.db.selectFrom('authenticators').select('unverified_cert_fingerprint').where('id', '=', foreignId).executeTakeFirstOrThrow();
      assert.equal(pending.unverified_cert_fingerprint, null, 'nothing was issued');
    } finally {
      foreignPki.dispose();
    }
  });
});
