/**
 * Ephemeral certificates of an API session end to end (spec: Current API Session), with CSRs made by `openssl`:
 * create, list (with the list parameters), read and delete them; another session's certificate is 404; a TLS
 * client presenting one without a token is that session, and is refused once the session ends (decision 0038).
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import * as client from 'openid-client';
import { splitPemCertificates } from '../../src/pki/index.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { discoverClient, loginToCallback } from '../helpers/oidc.js';
import { brokenSignature, opensslFingerprint, opensslKeyAndCsr } from '../helpers/openssl.js';

const CLIENT = '/edge/client/v1';
const CERTS = `${CLIENT}/current-api-session/certificates`;

describe(`ephemeral API session certificates (${testDialect})`, () => {
  let ctl: TestController;
  before(async () => {
    ctl = await startTestController();
    await ctl.adminToken(); // creates the default admin, who logs in below
  });
  after(async () => ctl.close());

  const login = async () => {
    const res = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: 'admin', password: 'admin-password' } });
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
    return { token: res.headers['svc-session'] as string, sessionId: res.json().data.id as string, identityId: res.json().data.identity.id as string };
  };
  const as = (token: string) => ({ 'svc-session': token });
  const create = (token: string, csr: string) => ctl.fetch(CERTS, { method: 'POST', headers: as(token), body: { csr } });
  const issued = async (token: string) => {
    const { keyPem, csrPem } = opensslKeyAndCsr('sdk-session-cert');
    const res = await create(token, csrPem);
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
    return { keyPem, ...(res.json().data as { id: string; certificate: string; cas: string }) };
  };
  const countRows = async () => Number((await ctl.running.database.db.selectFrom('api_session_certificates').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('issues a short-lived client certificate for the CSR key, bound to the session by its SPIFFE id', async () => {
    const session = await login();
    const { keyPem, csrPem } = opensslKeyAndCsr('whatever-the-sdk-asks');
    const res = await create(session.token, csrPem);
    assert.equal(res.status, 201, res.text);
    const { id, certificate, cas, _links } = res.json().data;
    assert.deepEqual(_links.self, { href: `./current-api-session/certificates/${id}` });
    assert.ok(splitPemCertificates(cas).length >= 1);
    const leaf = new X509Certificate(splitPemCertificates(certificate)[0]!);
    assert.equal(leaf.subject, `CN=${session.identityId}`);
    assert.equal(leaf.subjectAltName, `URI:spiffe://svc/identity/${session.identityId}/apiSession/${session.sessionId}/apiSessionCertificate/${id}`);
    assert.equal(leaf.checkPrivateKey((await import('node:crypto')).createPrivateKey(keyPem)), true);
    const hours = (new Date(leaf.validTo).getTime() - Date.now()) / 3_600_000;
    assert.ok(hours > 11 && hours <= 12, `valid for at most 12 hours (${hours})`);
  });

  it('lists, filters, reads and deletes only the session\'s own certificates; another session\'s is 404', async () => {
    const mine = await login();
    const theirs = await login();
    const a = await issued(mine.token);
    const b = await issued(mine.token);
    const other = await issued(theirs.token);

    const list = await ctl.fetch(`${CERTS}?limit=1&sort=createdAt`, { headers: as(mine.token) });
    assert.equal(list.status, 200, list.text);
    assert.equal(list.json().meta.pagination.totalCount, 2);
    assert.equal(list.json().data.length, 1);
    const fingerprint = opensslFingerprint(b.certificate);
    const filtered = await ctl.fetch(`${CERTS}?filter=${encodeURIComponent(`fingerprint = "${fingerprint}"`)}`, { headers: as(mine.token) });
    assert.deepEqual(filtered.json().data.map((c: { id: string }) => c.id), [b.id]);
    const badFilter = await ctl.fetch(`${CERTS}?filter=${encodeURIComponent('nonsense = "x"')}`, { headers: as(mine.token) });
    assert.equal(badFilter.status, 400);

    const detail = (await ctl.fetch(`${CERTS}/${a.id}`, { headers: as(mine.token) })).json().data;
    assert.equal(detail.fingerprint, opensslFingerprint(a.certificate));
    assert.equal(detail.subject, `CN=${mine.identityId}`);
    assert.ok(detail.validFrom < detail.validTo);

    for (const method of ['GET', 'DELETE']) {
      const res = await ctl.fetch(`${CERTS}/${other.id}`, { method, headers: as(mine.token) });
      assert.equal(res.status, 404, `${method} another session's certificate`);
    }
    assert.equal((await ctl.fetch(`${CERTS}/${other.id}`, { headers: as(theirs.token) })).status, 200, 'the other session still has it');

    assert.equal((await ctl.fetch(`${CERTS}/${a.id}`, { method: 'DELETE', headers: as(mine.token) })).status, 200);
    assert.equal((await ctl.fetch(`${CERTS}/${a.id}`, { headers: as(mine.token) })).status, 404);
  });

  it('authenticates a TLS client presenting only the certificate as its session, and refuses it after logout', async () => {
    const session = await login();
    const cert = await issued(session.token);
    const tls = { cert: cert.certificate, key: cert.keyPem };
    const during = await ctl.fetch(`${CLIENT}/current-api-session`, tls);
    assert.equal(during.status, 200, during.text);
    assert.equal(during.json().data.id, session.sessionId);
    assert.equal(during.json().data.token, '', 'the certificate names the session; its token is not shown');

    // A client holding only the certificate can get another one for the same session.
    const second = opensslKeyAndCsr('second');
    const created = await ctl.fetch(CERTS, { method: 'POST', body: { csr: second.csrPem }, ...tls });
    assert.equal(created.status, 201, created.text);
    const secondTls = { cert: created.json().data.certificate, key: second.keyPem };
    assert.equal((await ctl.fetch(`${CLIENT}/current-api-session`, secondTls)).json().data.id, session.sessionId);

    assert.equal((await ctl.fetch(`${CLIENT}/current-api-session`, { method: 'DELETE', headers: as(session.token) })).status, 200);
    for (const presented of [tls, secondTls]) {
      const afterLogout = await ctl.fetch(`${CLIENT}/current-api-session`, presented);
      assert.equal(afterLogout.status, 401, afterLogout.text);
    }
    assert.ok(new Date(new X509Certificate(splitPemCertificates(cert.certificate)[0]!).validTo).getTime() > Date.now(), 'though unexpired');
    const left = await ctl.running.database.db.selectFrom('api_session_certificates').select('id').where('api_session_id', '=', session.sessionId).execute();
    assert.deepEqual(left, [], 'the session\'s certificates went with it');
  });

  it('issues and lists certificates for an OIDC session, which do not stand for it on the controller', async () => {
    const config = await discoverClient(ctl);
    const login = await loginToCallback(ctl, config, 'admin', 'admin-password');
    const tokens = await client.authorizationCodeGrant(config, login.callback, { pkceCodeVerifier: login.verifier, expectedState: login.state, expectedNonce: login.nonce });
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    const { keyPem, csrPem } = opensslKeyAndCsr('oidc-sdk');
    const res = await ctl.fetch(CERTS, { method: 'POST', headers: bearer, body: { csr: csrPem } });
    assert.equal(res.status, 201, res.text);
    const listed = await ctl.fetch(CERTS, { headers: bearer });
    assert.deepEqual(listed.json().data.map((c: { id: string }) => c.id), [res.json().data.id]);
    const presented = await ctl.fetch(`${CLIENT}/current-api-session`, { cert: res.json().data.certificate, key: keyPem });
    assert.equal(presented.status, 401, 'an OIDC session is named by its access token only (decision 0038)');
  });

  it('refuses a deleted certificate at once', async () => {
    const session = await login();
    const cert = await issued(session.token);
    await ctl.fetch(`${CERTS}/${cert.id}`, { method: 'DELETE', headers: as(session.token) });
    assert.equal((await ctl.fetch(`${CLIENT}/current-api-session`, { cert: cert.certificate, key: cert.keyPem })).status, 401);
  });

  it('refuses bad CSRs with 400 MISSING_OR_INVALID_CSR naming the problem, and issues nothing', async () => {
    const session = await login();
    const before = await countRows();
    const cases = [
      { csr: opensslKeyAndCsr('x', [], 'rsa1024').csrPem, reason: /RSA of 1024 bits/ },
      { csr: opensslKeyAndCsr('x', [], 'ed25519').csrPem, reason: /ed25519/ },
      { csr: brokenSignature(opensslKeyAndCsr('x').csrPem), reason: /signature/ },
      { csr: 'not a csr', reason: /not PEM/ },
    ];
    for (const c of cases) {
      const res = await create(session.token, c.csr);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json().error.code, 'MISSING_OR_INVALID_CSR');
      assert.match(res.json().error.cause.reason, c.reason);
    }
    const missing = await ctl.fetch(CERTS, { method: 'POST', headers: as(session.token), body: {} });
    assert.equal(missing.status, 400);
    assert.equal(missing.json().error.code, 'COULD_NOT_VALIDATE');
    assert.equal(await countRows(), before);
    assert.equal((await ctl.fetch(CERTS, { method: 'POST', body: { csr: opensslKeyAndCsr('x').csrPem } })).status, 401, 'no session, no certificate');
  });
});
