/**
 * Certificate authenticator extension end to end (spec: Client certificate extension state table), with keys and
 * CSRs made by `openssl`: an identity enrolled by ott logs in by certificate, extends its certificate over mutual
 * TLS (the old one stays active), verifies the new one (only the new one logs in from then on); an administrator's
 * request-extend shows on the session. Every refused request is shown to change nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordChange } from '../../src/persistence/repositories/authorization-changes.js';
import { newEntityId } from '../../src/shared/random.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createEnrollment } from '../helpers/enrollment.js';
import { createIdentity } from '../helpers/fixtures.js';
import { managementClient } from '../helpers/management.js';
import { brokenSignature, opensslFingerprint, opensslKeyAndCsr } from '../helpers/openssl.js';

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
});
