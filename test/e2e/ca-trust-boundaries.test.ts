/**
 * What a third-party CA's trust reaches, and when it ends (issue 40, must-haves 3, 5 and 6; decision 0057), with
 * certificates made by the `openssl` command:
 * - a login by the CA's externalIdClaim reaches only identities enrolled through the CA or whose auth policy lists
 *   it in `primary.cert.allowedCas`, and an administrator only by that list;
 * - turning the CA's logins off, or deleting it, ends the legacy and OIDC sessions whose login chain reached it and
 *   their ephemeral certificates, and nothing else;
 * - a CA certificate, or one whose keyUsage allows neither digitalSignature nor keyAgreement, neither logs in nor
 *   enrolls; a leaf without keyUsage does.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { addCertAuthenticator, createIdentity } from '../helpers/fixtures.js';
import { authPolicyBody, managementClient, type ManagementClient } from '../helpers/management.js';
import { followCallback, passwordLoginTokens, postForm, REDIRECT_URI, startLogin, discoverClient } from '../helpers/oidc.js';
import { opensslKeyAndCsr } from '../helpers/openssl.js';
import { makeOpensslPki, type Issued, type OpensslPki } from '../helpers/openssl-pki.js';

const CLIENT = '/edge/client/v1';
const CLAIM = { location: 'SAN_EMAIL', matcher: 'SUFFIX', matcherCriteria: '@acme.example', parser: 'NONE', parserCriteria: '', index: 0 };
const LEAF = ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=clientAuth'];

describe(`what a third-party CA's trust reaches (${testDialect})`, () => {
  const logLines: string[] = [];
  let ctl: TestController;
  let admin: ManagementClient;
  let acme: OpensslPki;

  /** A leaf of the Acme intermediate with `email` as its email SAN, and `extensions` instead of a plain client leaf's. */
  const badge = (name: string, email?: string, extensions: string[] = LEAF) =>
    acme.issue(name, { extensions: [...extensions, ...(email ? [`subjectAltName=email:${email}`] : [])] });
  const tlsOf = (leaf: Issued) => ({ cert: leaf.certPem + acme.intermediate.certPem, key: leaf.keyPem });
  const legacyLogin = (leaf: Issued) => ctl.fetch(`${CLIENT}/authenticate?method=cert`, { method: 'POST', body: {}, ...tlsOf(leaf) });
  const lastRefusal = () => String(logLines.map((line) => JSON.parse(line)).filter((entry) => entry.securityEvent === 'login-refused').at(-1)?.reason ?? '');
  const enroll = (path: string, leaf: Issued, body?: object) => ctl.fetch(`${CLIENT}${path}`, { method: 'POST', ...(body ? { body } : {}), ...tlsOf(leaf) });
  const identityNamed = async (name: string) => (await admin.get(`/identities?filter=${encodeURIComponent(`name="${name}"`)}`)).json().data[0];

  /** A verified CA of Acme's root allowing logins, auto and ottca enrollment, with the email claim; its id. */
  async function registerCa(name: string, pki: OpensslPki): Promise<string> {
    const created = await admin.post('/cas', {
      name,
      certPem: pki.root.certPem,
      isAuthEnabled: true,
      isAutoCaEnrollmentEnabled: true,
      isOttCaEnrollmentEnabled: true,
      identityRoles: [],
      identityNameFormat: '[caName]-[commonName]',
      externalIdClaim: CLAIM,
    });
    assert.equal(created.status, 201, created.text);
    const id = created.json().data.id as string;
    const token = (await admin.get(`/cas/${id}`)).json().data.verificationToken;
    const proof = pki.issue(token, { signer: pki.root, extensions: ['basicConstraints=CA:FALSE'] }).certPem;
    const verified = await ctl.fetch(`/edge/management/v1/cas/${id}/verify`, { method: 'POST', headers: { 'svc-session': await ctl.adminToken(), 'content-type': 'text/plain' }, body: proof });
    assert.equal(verified.status, 200, verified.text);
    return id;
  }
  /** The id of what a management POST created. */
  const createdId = async (path: string, body: object) => {
    const res = await admin.post(path, body);
    assert.equal(res.status, 201, res.text);
    return res.json().data.id as string;
  };
  const newIdentity = (name: string, fields: object) => createdId('/identities', { name, type: 'Device', isAdmin: false, ...fields });
  const policyListing = (name: string, allowedCas: string[]) =>
    createdId('/auth-policies', { ...authPolicyBody(name), primary: { ...authPolicyBody(name).primary, cert: { allowed: true, allowExpiredCerts: false, allowedCas } } });
  /** Puts `identityId` under a new policy listing the CA `caId`; then `leaf` logs it in. */
  async function listedThenLogsIn(identityId: string, policyName: string, caId: string, leaf: Issued) {
    assert.equal((await admin.patch(`/identities/${identityId}`, { authPolicyId: await policyListing(policyName, [caId]) })).status, 200);
    const login = await legacyLogin(leaf);
    assert.equal(login.status, 200, login.text);
    assert.equal(login.json().data.identity.id, identityId);
  }

  before(async () => {
    ctl = await startTestController({ logLines });
    admin = managementClient(ctl, await ctl.adminToken());
    acme = makeOpensslPki('Acme');
  });
  after(async () => {
    acme.dispose();
    await ctl.close();
  });

  describe('external-id logins stay inside their CA', () => {
    let caId: string;
    before(async () => {
      caId = await registerCa('acme-claims', acme);
    });
    after(async () => {
      assert.equal((await admin.del(`/cas/${caId}`)).status, 200);
    });

    it("refuses a claim for an identity neither enrolled through the CA nor listed by its policy, and accepts it once the policy lists the CA", async () => {
      const id = await newIdentity('stranger-1', { externalId: 'stranger-1@acme.example' });
      const leaf = badge('stranger-1', 'stranger-1@acme.example');
      const refused = await legacyLogin(leaf);
      assert.equal(refused.status, 401);
      assert.equal(refused.json().error.code, 'INVALID_AUTH');
      assert.match(lastRefusal(), /not enrolled through the CA 'acme-claims' .* primary\.cert\.allowedCas/);
      await listedThenLogsIn(id, 'lists-acme', caId, leaf);
    });

    it('logs an identity enrolled through the CA in by its claim with a new certificate of the CA', async () => {
      const first = badge('laptop-a', 'laptop-a@acme.example');
      assert.equal((await enroll('/enroll/ca', first)).status, 200);
      const enrolled = await identityNamed('acme-claims-laptop-a');
      const renewed = badge('laptop-a-renewed', 'laptop-a@acme.example');
      const login = await legacyLogin(renewed);
      assert.equal(login.status, 200, login.text);
      assert.equal(login.json().data.identity.id, enrolled.id);
    });

    it('refuses a claim for an administrator, even one enrolled through the CA, unless its policy lists the CA', async () => {
      const adminId = await newIdentity('admin-by-badge', { isAdmin: true, externalId: 'boss@acme.example' });
      const leaf = badge('boss', 'boss@acme.example');
      assert.equal((await legacyLogin(leaf)).status, 401);
      assert.match(lastRefusal(), /is an administrator and its auth policy does not list the CA 'acme-claims'/);
      // Enrolled through the CA, then made an administrator: the enrollment no longer speaks for it.
      assert.equal((await enroll('/enroll/ca', badge('laptop-b', 'laptop-b@acme.example'))).status, 200);
      const promoted = await identityNamed('acme-claims-laptop-b');
      assert.equal((await admin.patch(`/identities/${promoted.id}`, { isAdmin: true })).status, 200);
      assert.equal((await legacyLogin(badge('laptop-b-2', 'laptop-b@acme.example'))).status, 401);
      assert.match(lastRefusal(), /administrator/);

      await listedThenLogsIn(adminId, 'admins-by-acme', caId, leaf);
    });

    it('shows allowedCas on every policy, empty unless set, and refuses one that is not a list of ids naming the field', async () => {
      const fresh = await admin.post('/auth-policies', authPolicyBody('reference-shape'));
      assert.equal(fresh.status, 201, fresh.text);
      const id = fresh.json().data.id;
      assert.deepEqual((await admin.get(`/auth-policies/${id}`)).json().data.primary.cert.allowedCas, []);
      assert.deepEqual((await admin.get('/auth-policies/default')).json().data.primary.cert.allowedCas, []);
      const patched = await admin.patch(`/auth-policies/${id}`, { primary: { cert: { allowedCas: [caId] } } });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual((await admin.get(`/auth-policies/${id}`)).json().data.primary.cert, { allowed: true, allowExpiredCerts: false, allowedCas: [caId] });
      const bad = await admin.patch(`/auth-policies/${id}`, { primary: { cert: { allowedCas: 'acme' } } });
      assert.equal(bad.status, 400);
      assert.match(JSON.stringify(bad.json().error), /allowedCas/);
      assert.deepEqual((await admin.get(`/auth-policies/${id}`)).json().data.primary.cert.allowedCas, [caId], 'the refused patch changed nothing');
    });
  });

  describe('withdrawing trust ends what it granted', () => {
    /** A CA, an identity enrolled through it, and its sessions: legacy (with an ephemeral certificate) and OIDC. */
    async function sessionsThrough(caName: string) {
      const pki = makeOpensslPki(caName);
      const caId = await registerCa(caName, pki);
      const leaf = pki.issue('device', { extensions: [...LEAF, `subjectAltName=email:${caName}-device@acme.example`] });
      const tls = { cert: leaf.certPem + pki.intermediate.certPem, key: leaf.keyPem };
      assert.equal((await ctl.fetch(`${CLIENT}/enroll/ca`, { method: 'POST', ...tls })).status, 200);
      const login = await ctl.fetch(`${CLIENT}/authenticate?method=cert`, { method: 'POST', body: {}, ...tls });
      assert.equal(login.status, 200, login.text);
      const token = login.headers['svc-session'] as string;
      const cert = await ctl.fetch(`${CLIENT}/current-api-session/certificates`, { method: 'POST', headers: { 'svc-session': token }, body: { csr: opensslKeyAndCsr('ephemeral').csrPem } });
      assert.equal(cert.status, 201, cert.text);
      const oidc = await oidcCertLogin(tls);
      return { pki, caId, tls, token, certId: cert.json().data.id as string, oidc };
    }
    async function oidcCertLogin(tls: { cert: string; key: string }) {
      const started = await startLogin(ctl, await discoverClient(ctl), {}, { certPem: tls.cert, keyPem: tls.key });
      const login = await ctl.fetch('/oidc/login/cert', { method: 'POST', body: { authRequestId: started.authRequestId }, ...tls });
      assert.equal(login.status, 302, login.text);
      const code = new URL(String(await followCallback(ctl, login.headers.location))).searchParams.get('code') ?? '';
      const tokens = await postForm(ctl, '/oidc/token', { grant_type: 'authorization_code', client_id: 'svc', redirect_uri: REDIRECT_URI, code, code_verifier: started.verifier });
      assert.equal(tokens.status, 200, tokens.text);
      return { accessToken: tokens.json().access_token as string, refreshToken: tokens.json().refresh_token as string };
    }
    const legacyWorks = async (token: string) => (await ctl.fetch(`${CLIENT}/current-api-session`, { headers: { 'svc-session': token } })).status;
    const bearerWorks = async (accessToken: string) => (await ctl.fetch(`${CLIENT}/current-api-session`, { headers: { authorization: `Bearer ${accessToken}` } })).status;
    const refresh = (refreshToken: string) => postForm(ctl, '/oidc/token', { grant_type: 'refresh_token', client_id: 'svc', refresh_token: refreshToken });
    const certificateRows = async (id: string) => (await ctl.running.database.db.selectFrom('api_session_certificates').select('id').where('id', '=', id).execute()).length;

    it('ends the legacy and OIDC sessions a CA let in, and their ephemeral certificates, when its logins are turned off; other sessions stay', async () => {
      const through = await sessionsThrough('Withdrawn');
      const bystander = await passwordLoginTokens(ctl, 'admin', 'admin-password');
      assert.equal(await legacyWorks(through.token), 200);
      assert.equal(await bearerWorks(through.oidc.accessToken), 200);

      assert.equal((await admin.patch(`/cas/${through.caId}`, { isAuthEnabled: false })).status, 200);
      assert.equal(await legacyWorks(through.token), 401, 'the legacy session ended');
      assert.equal(await bearerWorks(through.oidc.accessToken), 401, 'the OIDC session ended');
      assert.equal((await refresh(through.oidc.refreshToken)).status, 400, 'its refresh family is revoked');
      assert.equal(await certificateRows(through.certId), 0, 'its ephemeral certificate is gone');
      assert.equal(await bearerWorks(bystander.accessToken), 200, 'a password session stays');
      assert.equal(await legacyWorks(await ctl.adminToken()), 200, "the administrator's legacy session stays");

      // Turned back on: the ended sessions stay ended, and the certificate logs in anew.
      assert.equal((await admin.patch(`/cas/${through.caId}`, { isAuthEnabled: true })).status, 200);
      assert.equal(await legacyWorks(through.token), 401);
      const again = await ctl.fetch(`${CLIENT}/authenticate?method=cert`, { method: 'POST', body: {}, ...through.tls });
      assert.equal(again.status, 200, again.text);
      through.pki.dispose();
    });

    it('ends them when the CA is deleted, and a login through it is refused after', async () => {
      const through = await sessionsThrough('Deleted');
      const other = await sessionsThrough('Kept');
      assert.equal((await admin.del(`/cas/${through.caId}`)).status, 200);
      assert.equal(await legacyWorks(through.token), 401);
      assert.equal(await bearerWorks(through.oidc.accessToken), 401);
      assert.equal(await certificateRows(through.certId), 0);
      assert.equal((await ctl.fetch(`${CLIENT}/authenticate?method=cert`, { method: 'POST', body: {}, ...through.tls })).status, 401);
      assert.equal(await legacyWorks(other.token), 200, "another CA's sessions stay");
      assert.equal(await bearerWorks(other.oidc.accessToken), 200);
      assert.equal(await certificateRows(other.certId), 1);
      through.pki.dispose();
      other.pki.dispose();
    });
  });

  describe('leaf certificates are leaves', () => {
    let caId: string;
    before(async () => {
      caId = await registerCa('acme-leaves', acme);
    });

    const CA_LEAF = ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,digitalSignature', 'extendedKeyUsage=clientAuth'];
    const ENCIPHER_ONLY = ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,keyEncipherment', 'extendedKeyUsage=clientAuth'];

    it('refuses a CA certificate and one whose keyUsage lacks digitalSignature and keyAgreement at login; keyAgreement alone, or no keyUsage, logs in', async () => {
      const identity = await createIdentity(ctl.running.database, { name: 'leaf-holder' });
      const asCa = badge('as-ca', undefined, CA_LEAF);
      const encipherOnly = badge('encipher-only', undefined, ENCIPHER_ONLY);
      const agreement = badge('agreement', undefined, ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,keyAgreement', 'extendedKeyUsage=clientAuth']);
      const plain = badge('plain');
      for (const leaf of [asCa, encipherOnly, agreement, plain]) await addCertAuthenticator(ctl.running.database, identity.id, leaf.certPem);
      assert.equal((await legacyLogin(asCa)).status, 401);
      assert.match(lastRefusal(), /NOT_A_LEAF: the certificate is a CA certificate \(basicConstraints CA:TRUE\)/);
      assert.equal((await legacyLogin(encipherOnly)).status, 401);
      assert.match(lastRefusal(), /NOT_A_LEAF: the certificate keyUsage lacks digitalSignature and keyAgreement/);
      assert.equal((await legacyLogin(agreement)).status, 200);
      assert.equal((await legacyLogin(plain)).status, 200, 'no keyUsage extension: unrestricted (RFC 5280 section 4.2.1.3)');
    });

    it('refuses them at CA auto-enrollment and ottca enrollment with 400 naming the problem, creating nothing', async () => {
      const asCa = await enroll('/enroll/ca', badge('enroll-as-ca', undefined, CA_LEAF));
      assert.equal(asCa.status, 400);
      assert.equal(asCa.json().error.code, 'CERT_FAILED_VALIDATION');
      assert.match(asCa.json().error.cause.reason, /is a CA certificate \(basicConstraints CA:TRUE\)/);
      assert.equal(await identityNamed('acme-leaves-enroll-as-ca'), undefined);
      const encipher = await enroll('/enroll/ca', badge('enroll-encipher', 'enroll-encipher@acme.example', ENCIPHER_ONLY));
      assert.equal(encipher.status, 400);
      assert.match(encipher.json().error.cause.reason, /keyUsage lacks digitalSignature and keyAgreement/);
      assert.equal(await identityNamed('acme-leaves-enroll-encipher'), undefined);

      const phone = await createIdentity(ctl.running.database, { name: 'ottca-phone' });
      const created = await admin.post('/enrollments', { method: 'ottca', identityId: phone.id, caId, expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
      assert.equal(created.status, 201, created.text);
      const { token } = (await admin.get(`/enrollments/${created.json().data.id}`)).json().data;
      const refused = await enroll('/enroll/ottca', badge('ottca-as-ca', undefined, CA_LEAF), { token });
      assert.equal(refused.status, 400);
      assert.match(refused.json().error.cause.reason, /is a CA certificate/);
      const accepted = await enroll('/enroll/ottca', badge('ottca-phone'), { token });
      assert.equal(accepted.status, 200, accepted.text);
    });
  });
});
