/**
 * Third-party CAs end to end, with certificates made by the `openssl` command (issue 16, must-have 7): a root and an
 * intermediate of an organisation's own PKI; the CA registered and verified; an identity auto-enrolled from a
 * certificate of the intermediate; certificate logins (legacy and OIDC) with the intermediate sent in the handshake;
 * an ottca enrollment; and the bad inputs, each a 4xx naming the problem that changes nothing.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { recordChange } from '../../src/persistence/repositories/authorization-changes.js';
import { splitPemCertificates, x509 } from '../../src/pki/index.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { authenticatorsOf, isPending } from '../helpers/enrollment.js';
import { createIdentity } from '../helpers/fixtures.js';
import { managementClient, type ManagementClient } from '../helpers/management.js';
import { discoverClient, followCallback, startLogin } from '../helpers/oidc.js';
import { makeOpensslPki, type Issued, type OpensslPki } from '../helpers/openssl-pki.js';

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
const chainOf = (leaf: Issued, ...more: Issued[]) => [leaf, ...more].map((one) => one.certPem).join('');
const fingerprintOf = (pem: string) => new X509Certificate(pem).fingerprint.replace(/:/g, '').toLowerCase();

describe(`third-party CAs (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let acme: OpensslPki;
  let other: OpensslPki;
  let caId: string;
  let caDetail: any;

  before(async () => {
    ctl = await startTestController();
    admin = managementClient(ctl, await ctl.adminToken());
    acme = makeOpensslPki('Acme');
    other = makeOpensslPki('Other');
  });
  after(async () => {
    acme.dispose();
    other.dispose();
    await ctl.close();
  });

  const caBody = (certPem: string, name = 'acme') => ({
    name,
    certPem,
    isAuthEnabled: true,
    isAutoCaEnrollmentEnabled: true,
    isOttCaEnrollmentEnabled: true,
    identityRoles: ['acme-device'],
    identityNameFormat: '[caName]-[commonName]',
  });
  const casCount = async () => (await admin.get('/cas')).json().meta.pagination.totalCount;
  const client_ = (path: string, cert: { chain: string; keyPem: string } | undefined, body?: object) =>
    ctl.fetch(`/edge/client/v1${path}`, { method: 'POST', ...(body ? { body } : {}), ...(cert ? { cert: cert.chain, key: cert.keyPem } : {}) });
  const withChain = (leaf: Issued, ...more: Issued[]) => ({ chain: chainOf(leaf, ...more), keyPem: leaf.keyPem });
  const identityNamed = async (name: string) => (await admin.get(`/identities?filter=${encodeURIComponent(`name="${name}"`)}`)).json().data[0];

  it('refuses a CA certificate that is not a CA, is expired or is not one certificate, naming certPem, and stores nothing', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['not a CA', acme.selfSigned('just-a-leaf', { ca: false }).certPem, /not a CA certificate/],
      ['expired', acme.selfSigned('old-root', { days: -1 }).certPem, /has expired/],
      ['two certificates', acme.root.certPem + acme.intermediate.certPem, /exactly one PEM certificate/],
      ['a key', acme.root.keyPem, /must not hold a private key/],
    ];
    for (const [what, certPem, reason] of cases) {
      const res = await admin.post('/cas', caBody(certPem, `bad-${what.replace(/ /g, '-')}`));
      assert.equal(res.status, 400, `${what}: ${res.text}`);
      assert.equal(res.json().error.code, 'COULD_NOT_VALIDATE');
      assert.equal(res.json().error.cause.field, 'certPem', what);
      assert.match(res.json().error.cause.reason, reason, what);
    }
    const badFormat = await admin.post('/cas', { ...caBody(acme.root.certPem, 'bad-format'), identityNameFormat: '[caName]-[nickname]' });
    assert.equal(badFormat.status, 400);
    assert.equal(badFormat.json().error.cause.field, 'identityNameFormat');
    assert.equal(await casCount(), 0);
  });

  it("refuses the controller's own root, intermediate, or a copy of one under another name, naming certPem, and stores nothing", async () => {
    const lookalike = execFileSync('openssl', ['req', '-x509', '-key', ctl.pki.intermediateKey, '-subj', '/CN=Not Our Intermediate', '-days', '30', '-addext', 'basicConstraints=critical,CA:TRUE'], { encoding: 'utf8' });
    const cases: Array<[string, string]> = [
      ['root', readFileSync(ctl.pki.rootCert, 'utf8')],
      ['intermediate', readFileSync(ctl.pki.intermediateCert, 'utf8')],
      ['same key, another name', lookalike],
    ];
    for (const [what, certPem] of cases) {
      const res = await admin.post('/cas', caBody(certPem, `own-${what.replace(/[ ,]+/g, '-')}`));
      assert.equal(res.status, 400, `${what}: ${res.text}`);
      assert.equal(res.json().error.code, 'COULD_NOT_VALIDATE', what);
      assert.equal(res.json().error.cause.field, 'certPem', what);
      assert.match(res.json().error.cause.reason, /one of this controller's own CAs/, what);
    }
    assert.equal(await casCount(), 0);
    // Positive control: another organisation's CA is accepted by the same call (and removed again for what follows).
    const accepted = await admin.post('/cas', caBody(other.root.certPem, 'other-org'));
    assert.equal(accepted.status, 201, accepted.text);
    assert.equal((await admin.del(`/cas/${accepted.json().data.id}`)).status, 200);
    assert.equal(await casCount(), 0);
  });

  it('registers a CA unverified with a verification token, and refuses the same certificate a second time', async () => {
    const created = await admin.post('/cas', caBody(acme.root.certPem));
    assert.equal(created.status, 201, created.text);
    caId = created.json().data.id;
    caDetail = (await admin.get(`/cas/${caId}`)).json().data;
    assert.equal(caDetail.isVerified, false);
    assert.match(caDetail.verificationToken, /^[0-9a-f-]{36}$/);
    assert.equal(caDetail.fingerprint, fingerprintOf(acme.root.certPem));
    assert.deepEqual(caDetail.identityRoles, ['acme-device']);
    assert.equal(caDetail.externalIdClaim, null);

    const again = await admin.post('/cas', caBody(acme.root.certPem, 'acme-again'));
    assert.equal(again.status, 400);
    assert.equal(again.json().error.cause.field, 'certPem');
    assert.match(again.json().error.cause.reason, /already registered/);
    assert.equal(await casCount(), 1);
  });

  it('refuses auto-enrollment while the CA is not verified', async () => {
    const early = acme.client('early-laptop');
    const res = await client_('/enroll/ca', withChain(early, acme.intermediate));
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json().error.code, 'ENROLLMENT_NO_VALID_CAS');
    assert.equal(await identityNamed('acme-early-laptop'), undefined);
  });

  it('refuses a verification certificate signed by another key or with the wrong common name, then verifies with the right one', async () => {
    const token = caDetail.verificationToken;
    const session = await ctl.adminToken();
    const verify = (pem: string) => ctl.fetch(`/edge/management/v1/cas/${caId}/verify`, { method: 'POST', headers: { 'svc-session': session, 'content-type': 'text/plain' }, body: pem });
    const forged = await verify(other.issue(token, { signer: other.root, extensions: ['basicConstraints=CA:FALSE'] }).certPem);
    assert.equal(forged.status, 400);
    assert.equal(forged.json().error.code, 'CERTIFICATE_FAILED_VALIDATION');
    const wrongName = await verify(acme.issue('not-the-token', { signer: acme.root, extensions: ['basicConstraints=CA:FALSE'] }).certPem);
    assert.equal(wrongName.status, 400);
    assert.equal(wrongName.json().error.code, 'INVALID_COMMON_NAME');
    const notPem = await verify('hello');
    assert.equal(notPem.status, 400);
    assert.equal(notPem.json().error.code, 'EXPECTED_PEM_CERTIFICATE');
    assert.equal((await admin.get(`/cas/${caId}`)).json().data.isVerified, false, 'nothing changed');

    const good = await verify(acme.issue(token, { signer: acme.root, extensions: ['basicConstraints=CA:FALSE'] }).certPem);
    assert.equal(good.status, 200, good.text);
    assert.equal((await admin.get(`/cas/${caId}`)).json().data.isVerified, true);
    const twice = await verify(acme.issue(token, { signer: acme.root, extensions: ['basicConstraints=CA:FALSE'] }).certPem);
    assert.equal(twice.status, 409);
    assert.equal(twice.json().error.code, 'CA_ALREADY_VERIFIED');
  });

  it("keeps the verified CA out of the well-known CA bundle, which serves the controller's own CAs only", async () => {
    const bundle = new x509.X509Certificates(Buffer.from((await ctl.fetch('/.well-known/est/cacerts')).text, 'base64'));
    const served = [...bundle].map((cert) => fingerprintOf(cert.toString('pem'))).sort();
    assert.equal(served.includes(fingerprintOf(acme.root.certPem)), false, 'the third-party CA is not served');
    assert.deepEqual(served, splitPemCertificates(ctl.ca).map(fingerprintOf).sort(), "exactly the controller's CA bundle");
  });

  it('names the verified CA among the acceptable CAs of the TLS certificate request, so that Go clients send its certificates', async () => {
    // openssl s_client prints the CA names of the server's certificate request; stdin closed, it ends after the handshake.
    const acceptable = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn('openssl', ['s_client', '-connect', new URL(ctl.baseUrl).host], { stdio: ['ignore', 'pipe', 'ignore'] });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.on('error', reject);
        child.on('close', () => resolve(out));
      });
    let names = await acceptable();
    // The listeners take the new set once the change is told to them, right after the commit.
    for (let attempt = 0; attempt < 50 && !names.includes('Acme Root CA'); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      names = await acceptable();
    }
    const section = names.slice(names.indexOf('Acceptable client certificate CA names'));
    assert.match(section, /CN = Acme Root CA/);
  });

  it('signs the CA enrollment JWT with em ca and the CA id as subject', async () => {
    const res = await ctl.fetch(`/edge/management/v1/cas/${caId}/jwt`, { headers: { 'svc-session': await ctl.adminToken() } });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/jwt/);
    const claims = decodeJwt(res.text);
    assert.equal(claims.em, 'ca');
    assert.equal(claims.sub, caId);
    assert.equal(claims.exp, undefined);
  });

  let laptop: Issued;
  it('auto-enrolls an identity from a certificate of the intermediate, named and given roles by the CA; the certificate enrolls once', async () => {
    laptop = acme.client('laptop-1');
    const res = await client_('/enroll/ca', withChain(laptop, acme.intermediate));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json().data, {});
    const identity = await identityNamed('acme-laptop-1');
    assert.ok(identity, 'identity created');
    assert.deepEqual(identity.roleAttributes, ['acme-device']);
    const authenticators = await authenticatorsOf(ctl, identity.id);
    assert.equal(authenticators.length, 1);
    assert.equal(authenticators[0]!.cert_fingerprint, fingerprintOf(laptop.certPem));
    assert.equal(Boolean(authenticators[0]!.is_issued_by_network), false);

    const again = await client_('/enroll?method=ca', withChain(laptop, acme.intermediate));
    assert.equal(again.status, 409);
    assert.equal(again.json().error.code, 'CERT_IN_USE');
    const none = await client_('/enroll/ca', undefined);
    assert.equal(none.status, 400);
    assert.equal(none.json().error.code, 'CERT_FAILED_VALIDATION');
    const stranger = await client_('/enroll/ca', withChain(other.client('stranger'), other.intermediate));
    assert.equal(stranger.status, 400);
    assert.equal(stranger.json().error.code, 'ENROLLMENT_NO_VALID_CAS');
    assert.equal(await identityNamed('acme-stranger'), undefined);
  });

  it('auto-enrolls as the Go SDK asks: POST /enroll?method=ca with a JSON content type and an empty body', async () => {
    const laptop2 = acme.client('laptop-2');
    const res = await ctl.fetch('/edge/client/v1/enroll?method=ca', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '',
      cert: chainOf(laptop2, acme.intermediate),
      key: laptop2.keyPem,
    });
    assert.equal(res.status, 200, res.text);
    assert.ok(await identityNamed('acme-laptop-2'));
    const named = await client_('/enroll/ca', withChain(acme.client('laptop-3'), acme.intermediate), { name: 'chosen' });
    assert.equal(named.status, 200, named.text);
  });

  it('logs the enrolled certificate in (legacy) with the intermediate sent after the leaf, and not without it', async () => {
    const login = await client_('/authenticate?method=cert', withChain(laptop, acme.intermediate), {});
    assert.equal(login.status, 200, login.text);
    assert.ok(login.json().data.token);
    const leafOnly = await client_('/authenticate?method=cert', withChain(laptop), {});
    assert.equal(leafOnly.status, 401, 'the leaf alone does not lead to the registered root');
  });

  it('logs the enrolled certificate in through OIDC with the intermediate in the chain', async () => {
    const config = await discoverClient(ctl);
    const cert = { certPem: chainOf(laptop, acme.intermediate), keyPem: laptop.keyPem };
    const started = await startLogin(ctl, config, {}, cert);
    const login = await ctl.fetch('/oidc/login/cert', { method: 'POST', body: { authRequestId: started.authRequestId }, cert: cert.certPem, key: cert.keyPem });
    assert.equal(login.status, 302, login.text);
    const callback = new URL(String(await followCallback(ctl, login.headers.location)));
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce });
    assert.equal(decodeJwt(tokens.access_token).sub, (await identityNamed('acme-laptop-1')).id);
  });

  it('stops certificate logins when the CA disables them, and refuses auto-enrollment when it is turned off', async () => {
    assert.equal((await admin.patch(`/cas/${caId}`, { isAuthEnabled: false, isAutoCaEnrollmentEnabled: false })).status, 200);
    const login = await client_('/authenticate?method=cert', withChain(laptop, acme.intermediate), {});
    assert.equal(login.status, 401);
    const res = await client_('/enroll/ca', withChain(acme.client('late-laptop'), acme.intermediate));
    assert.equal(res.status, 400);
    assert.equal(res.json().error.code, 'ENROLLMENT_NO_VALID_CAS');
    assert.equal(await identityNamed('acme-late-laptop'), undefined);
    assert.equal((await admin.patch(`/cas/${caId}`, { isAuthEnabled: true, isAutoCaEnrollmentEnabled: true })).status, 200);
    assert.equal((await client_('/authenticate?method=cert', withChain(laptop, acme.intermediate), {})).status, 200);
  });

  it('sets the externalId of an auto-enrolled identity by the CA externalIdClaim, and refuses a certificate without the value', async () => {
    const claim = { location: 'SAN_EMAIL', matcher: 'SUFFIX', matcherCriteria: '@acme.example', parser: 'NONE', parserCriteria: '', index: 0 };
    assert.equal((await admin.patch(`/cas/${caId}`, { externalIdClaim: claim })).status, 200);
    const badge = acme.client('badge-9', { extensions: ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=clientAuth', 'subjectAltName=email:badge-9@acme.example'] });
    const res = await client_('/enroll/ca', withChain(badge, acme.intermediate));
    assert.equal(res.status, 200, res.text);
    assert.equal((await identityNamed('acme-badge-9')).externalId, 'badge-9@acme.example');
    const bare = await client_('/enroll/ca', withChain(acme.client('badge-10'), acme.intermediate));
    assert.equal(bare.status, 400);
    assert.equal(bare.json().error.code, 'CERT_FAILED_VALIDATION');
    assert.equal(await identityNamed('acme-badge-10'), undefined);
    assert.equal((await admin.patch(`/cas/${caId}`, { externalIdClaim: null })).status, 200);
  });

  const ottcaFor = async (name: string) => {
    const identity = await createIdentity(ctl.running.database, { name });
    const res = await admin.post('/enrollments', { method: 'ottca', identityId: identity.id, caId, expiresAt: inAnHour() });
    assert.equal(res.status, 201, res.text);
    const enrollment = (await admin.get(`/enrollments/${res.json().data.id}`)).json().data;
    return { identity, enrollment };
  };

  it('enrolls by ottca: the token and a certificate of the named CA, no CSR; the token then is spent', async () => {
    const { identity, enrollment } = await ottcaFor('phone-1');
    assert.equal(enrollment.caId, caId);
    assert.equal(decodeJwt(enrollment.jwt).em, 'ottca');
    const phone = acme.client('phone-1');
    const wrongCa = await client_('/enroll/ottca', withChain(other.client('phone-1'), other.intermediate), { token: enrollment.token });
    assert.equal(wrongCa.status, 400);
    assert.equal(wrongCa.json().error.code, 'CERT_FAILED_VALIDATION');
    assert.equal(await isPending(ctl, enrollment.id), true, 'a refused attempt leaves the enrollment pending');

    const res = await client_('/enroll/ottca', withChain(phone, acme.intermediate), { token: enrollment.token });
    assert.equal(res.status, 200, res.text);
    const [authenticator] = await authenticatorsOf(ctl, identity.id);
    assert.equal(authenticator?.cert_fingerprint, fingerprintOf(phone.certPem));
    assert.equal(await isPending(ctl, enrollment.id), false);
    const reused = await client_(`/enroll?method=ottca&token=${enrollment.token}`, withChain(acme.client('phone-1b'), acme.intermediate));
    assert.equal(reused.status, 410);
    assert.equal(reused.json().error.code, 'INVALID_ENROLLMENT_ALREADY_ENROLLED');
    const login = await client_('/authenticate?method=cert', withChain(phone, acme.intermediate), {});
    assert.equal(login.status, 200, login.text);
  });

  it('refuses an ottca enrollment without a caId or naming an unknown CA, creating nothing', async () => {
    const identity = await createIdentity(ctl.running.database, { name: 'no-ca' });
    const missing = await admin.post('/enrollments', { method: 'ottca', identityId: identity.id, expiresAt: inAnHour() });
    assert.equal(missing.status, 400);
    assert.equal(missing.json().error.cause.field, 'caId');
    const unknown = await admin.post('/enrollments', { method: 'ottca', identityId: identity.id, caId: 'nope', expiresAt: inAnHour() });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.json().error.code, 'REFERENCED_ENTITY_NOT_FOUND');
    assert.equal(unknown.json().error.cause.field, 'caId');
    const stray = await admin.post('/enrollments', { method: 'ott', identityId: identity.id, caId, expiresAt: inAnHour() });
    assert.equal(stray.status, 400);
    assert.equal(stray.json().error.cause.field, 'caId');
    assert.equal((await admin.get(`/enrollments?filter=${encodeURIComponent(`identityId="${identity.id}"`)}`)).json().data.length, 0);
  });

  it('creates an identity with an ottca enrollment in one request, shown with its CA in the identity detail', async () => {
    const created = await admin.post('/identities', { name: 'tablet-1', type: 'Device', isAdmin: false, enrollment: { ottca: caId } });
    assert.equal(created.status, 201, created.text);
    const detail = (await admin.get(`/identities/${created.json().data.id}`)).json().data;
    assert.equal(detail.enrollment.ottca.caId, caId);
    assert.equal(decodeJwt(detail.enrollment.ottca.jwt).em, 'ottca');
    const tablet = acme.client('tablet-1');
    const res = await client_(`/enroll?method=ottca&token=${detail.enrollment.ottca.token}`, withChain(tablet, acme.intermediate));
    assert.equal(res.status, 200, res.text);
    const unknownCa = await admin.post('/identities', { name: 'tablet-2', type: 'Device', isAdmin: false, enrollment: { ottca: 'no-such-ca' } });
    assert.equal(unknownCa.status, 400);
    assert.equal(unknownCa.json().error.cause.field, 'caId');
    assert.equal(await identityNamed('tablet-2'), undefined, 'the identity is not created without its enrollment');
  });

  it('refuses an expired ottca token and keeps the enrollment', async () => {
    const { enrollment } = await ottcaFor('phone-expired');
    const db = ctl.running.database;
    await db.db.updateTable('enrollments').set({ expires_at: new Date(Date.now() - 60_000).toISOString() }).where('id', '=', enrollment.id).execute();
    await recordChange(db, 'identity', enrollment.identityId);
    const res = await client_('/enroll/ottca', withChain(acme.client('phone-expired'), acme.intermediate), { token: enrollment.token });
    assert.equal(res.status, 400);
    assert.equal(res.json().error.code, 'ENROLLMENT_EXPIRED');
    assert.equal(await isPending(ctl, enrollment.id), true);
  });

  it('enrolls once when two requests race with one ottca token', async () => {
    const { identity, enrollment } = await ottcaFor('phone-race');
    const certs = [acme.client('phone-race-a'), acme.client('phone-race-b')];
    const answers = await Promise.all(certs.map((cert) => client_('/enroll/ottca', withChain(cert, acme.intermediate), { token: enrollment.token })));
    const statuses = answers.map((answer) => answer.status).sort();
    assert.equal(statuses.filter((status) => status === 200).length, 1, `one winner: ${statuses.join(', ')}`);
    const loser = answers.find((answer) => answer.status !== 200);
    assert.ok(loser && loser.status >= 400 && loser.status < 500, loser?.text);
    assert.equal((await authenticatorsOf(ctl, identity.id)).length, 1);
  });

  it('refuses ottca when the CA does not allow it, and deleting the CA removes its pending enrollments', async () => {
    const { enrollment } = await ottcaFor('phone-off');
    assert.equal((await admin.patch(`/cas/${caId}`, { isOttCaEnrollmentEnabled: false })).status, 200);
    const res = await client_('/enroll/ottca', withChain(acme.client('phone-off'), acme.intermediate), { token: enrollment.token });
    assert.equal(res.status, 400);
    assert.equal(res.json().error.code, 'ENROLLMENT_CA_NOT_VALID');
    assert.equal(await isPending(ctl, enrollment.id), true);
    assert.equal((await admin.del(`/cas/${caId}`)).status, 200);
    assert.equal(await isPending(ctl, enrollment.id), false);
    assert.equal((await client_('/authenticate?method=cert', withChain(laptop, acme.intermediate), {})).status, 401, 'a deleted CA is trusted no more');
  });
});
