/**
 * Certificate login by a third-party CA's externalIdClaim (issue 16; decision 0037): a certificate that no
 * authenticator holds logs in, legacy and OIDC, as the identity whose externalId the verified, auth-enabled CA's claim
 * reads from it, under the same checks as any certificate login (identity enabled, auth policy allowing certificate
 * logins and judging expired certificates). The identities here were not enrolled through the CA, so their auth
 * policies list it in `primary.cert.allowedCas` (decision 0057; test/e2e/ca-trust-boundaries.test.ts covers the rest).
 * Everything else is the one 401, its reason in the security log.
 * Certificates are made by the `openssl` command.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { addCertAuthenticator, createIdentity } from '../helpers/fixtures.js';
import { authPolicyBody, managementClient, type ManagementClient } from '../helpers/management.js';
import { discoverClient, followCallback, startLogin } from '../helpers/oidc.js';
import { makeOpensslPki, type Issued, type OpensslPki } from '../helpers/openssl-pki.js';

const CLAIM = { location: 'SAN_EMAIL', matcher: 'SUFFIX', matcherCriteria: '@acme.example', parser: 'NONE', parserCriteria: '', index: 0 };

describe(`certificate login by a CA's externalIdClaim (${testDialect})`, () => {
  const logLines: string[] = [];
  let ctl: TestController;
  let admin: ManagementClient;
  let acme: OpensslPki;
  let caId: string;
  let badgeHolderId: string;
  /** A policy listing the CA, so its claim may log in the identities that use it. */
  let listingPolicyId: string;

  /** A certificate of the Acme intermediate for client authentication, with `email` as its email SAN if given. */
  const badge = (name: string, email?: string, days?: number) =>
    acme.client(name, {
      extensions: ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=clientAuth', ...(email ? [`subjectAltName=email:${email}`] : [])],
      ...(days === undefined ? {} : { days }),
    });
  const legacyLogin = (leaf: Issued) =>
    ctl.fetch('/edge/client/v1/authenticate?method=cert', { method: 'POST', body: {}, cert: leaf.certPem + acme.intermediate.certPem, key: leaf.keyPem });
  /** The reason the security log gives for the last refused login. */
  const lastRefusal = () => {
    const refused = logLines.map((line) => JSON.parse(line)).filter((entry) => entry.securityEvent === 'login-refused');
    return String(refused.at(-1)?.reason ?? '');
  };
  const newIdentity = async (name: string, externalId: string, extra: object = {}) => {
    const res = await admin.post('/identities', { name, type: 'Device', isAdmin: false, externalId, authPolicyId: listingPolicyId, ...extra });
    assert.equal(res.status, 201, res.text);
    return res.json().data.id as string;
  };

  before(async () => {
    ctl = await startTestController({ logLines });
    admin = managementClient(ctl, await ctl.adminToken());
    acme = makeOpensslPki('Acme');
    const created = await admin.post('/cas', {
      name: 'acme',
      certPem: acme.root.certPem,
      isAuthEnabled: true,
      isAutoCaEnrollmentEnabled: false,
      isOttCaEnrollmentEnabled: false,
      identityRoles: [],
      externalIdClaim: CLAIM,
    });
    assert.equal(created.status, 201, created.text);
    caId = created.json().data.id;
    const token = (await admin.get(`/cas/${caId}`)).json().data.verificationToken;
    const verification = acme.issue(token, { signer: acme.root, extensions: ['basicConstraints=CA:FALSE'] }).certPem;
    const verified = await ctl.fetch(`/edge/management/v1/cas/${caId}/verify`, { method: 'POST', headers: { 'svc-session': await ctl.adminToken(), 'content-type': 'text/plain' }, body: verification });
    assert.equal(verified.status, 200, verified.text);
    const listing = await admin.post('/auth-policies', { ...authPolicyBody('lists-acme'), primary: { ...authPolicyBody('lists-acme').primary, cert: { allowed: true, allowExpiredCerts: true, allowedCas: [caId] } } });
    assert.equal(listing.status, 201, listing.text);
    listingPolicyId = listing.json().data.id;
    badgeHolderId = await newIdentity('badge-holder', 'badge-1@acme.example');
  });
  after(async () => {
    acme.dispose();
    await ctl.close();
  });

  it('logs the identity whose externalId the claim reads in (legacy), its session naming the CA as the authenticator', async () => {
    const login = await legacyLogin(badge('badge-1', 'badge-1@acme.example'));
    assert.equal(login.status, 200, login.text);
    const token = login.json().data.token as string;
    assert.equal(login.json().data.identity.id, badgeHolderId);
    const session = await ctl.fetch('/edge/client/v1/current-api-session', { headers: { 'svc-session': token } });
    assert.equal(session.status, 200, session.text);
    assert.equal(session.json().data.authenticatorId, `caExternalId:${caId}`);
    assert.equal(session.json().data.isCertExtendable, false, 'no authenticator of this controller to extend');
    const me = await ctl.fetch('/edge/client/v1/current-identity', { headers: { 'svc-session': token } });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.json().data.externalId, 'badge-1@acme.example');
  });

  it('logs the identity in through OIDC with the same certificate', async () => {
    const leaf = badge('badge-1-oidc', 'badge-1@acme.example');
    const config: client.Configuration = await discoverClient(ctl);
    const tls = { certPem: leaf.certPem + acme.intermediate.certPem, keyPem: leaf.keyPem };
    const started = await startLogin(ctl, config, {}, tls);
    const login = await ctl.fetch('/oidc/login/cert', { method: 'POST', body: { authRequestId: started.authRequestId }, cert: tls.certPem, key: tls.keyPem });
    assert.equal(login.status, 302, login.text);
    const callback = new URL(String(await followCallback(ctl, login.headers.location)));
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce });
    assert.equal(decodeJwt(tokens.access_token).sub, badgeHolderId);
    const me = await ctl.fetch('/edge/client/v1/current-identity', { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.json().data.id, badgeHolderId);
  });

  it('refuses a claimed externalId no identity has, and a certificate without the claimed value, with 401', async () => {
    const unknown = await legacyLogin(badge('badge-404', 'nobody@acme.example'));
    assert.equal(unknown.status, 401);
    assert.equal(unknown.json().error.code, 'INVALID_AUTH');
    assert.match(lastRefusal(), /no identity has the externalId 'nobody@acme.example'/);
    const bare = await legacyLogin(badge('no-email'));
    assert.equal(bare.status, 401);
    assert.match(lastRefusal(), /externalIdClaim of the CA 'acme' .* finds no value/);
    const elsewhere = await legacyLogin(badge('elsewhere', 'badge-1@other.example'));
    assert.equal(elsewhere.status, 401, 'the matcher keeps only the CA suffix');
  });

  it('refuses a disabled identity at once, and lets it in again once enabled', async () => {
    const leaf = badge('badge-2', 'badge-2@acme.example');
    const id = await newIdentity('badge-2', 'badge-2@acme.example');
    assert.equal((await legacyLogin(leaf)).status, 200, 'logged in once: the identity is now in the authentication cache');
    assert.equal((await admin.post(`/identities/${id}/disable`, { durationMinutes: 0 })).status, 200);
    const refused = await legacyLogin(leaf);
    assert.equal(refused.status, 401);
    assert.match(lastRefusal(), /disabled/);
    assert.equal((await admin.post(`/identities/${id}/enable`)).status, 200);
    assert.equal((await legacyLogin(leaf)).status, 200);
  });

  it("follows the identity's auth policy: certificate logins allowed, and expired certificates only where it allows them", async () => {
    const policy = await admin.post('/auth-policies', authPolicyBody('no-certs'));
    assert.equal(policy.status, 201, policy.text);
    const policyId = policy.json().data.id;
    assert.equal((await admin.patch(`/auth-policies/${policyId}`, { primary: { cert: { allowed: false, allowExpiredCerts: false, allowedCas: [caId] } } })).status, 200);
    await newIdentity('badge-3', 'badge-3@acme.example', { authPolicyId: policyId });
    const leaf = badge('badge-3', 'badge-3@acme.example');
    assert.equal((await legacyLogin(leaf)).status, 401);
    assert.match(lastRefusal(), /does not allow certificate logins/);

    const expired = badge('badge-3-old', 'badge-3@acme.example', -1);
    assert.equal((await admin.patch(`/auth-policies/${policyId}`, { primary: { cert: { allowed: true, allowExpiredCerts: false } } })).status, 200);
    assert.equal((await legacyLogin(leaf)).status, 200);
    assert.equal((await legacyLogin(expired)).status, 401);
    assert.match(lastRefusal(), /CERT_HAS_EXPIRED/);
    assert.equal((await admin.patch(`/auth-policies/${policyId}`, { primary: { cert: { allowed: true, allowExpiredCerts: true } } })).status, 200);
    assert.equal((await legacyLogin(expired)).status, 200, 'the policy allows expired certificates');
  });

  it('logs a certificate an authenticator holds in as that authenticator says, whatever the claim reads', async () => {
    const other = await createIdentity(ctl.running.database, { name: 'authenticator-holder' });
    const leaf = badge('held', 'badge-1@acme.example');
    await addCertAuthenticator(ctl.running.database, other.id, leaf.certPem);
    const login = await legacyLogin(leaf);
    assert.equal(login.status, 200, login.text);
    assert.equal(login.json().data.identity.id, other.id);
  });

  it('refuses by the claim once the CA no longer allows logins, and without a claim as before', async () => {
    const leaf = badge('badge-1-again', 'badge-1@acme.example');
    assert.equal((await admin.patch(`/cas/${caId}`, { isAuthEnabled: false })).status, 200);
    assert.equal((await legacyLogin(leaf)).status, 401);
    assert.match(lastRefusal(), /no certificate authenticator has this certificate/);
    assert.equal((await admin.patch(`/cas/${caId}`, { isAuthEnabled: true, externalIdClaim: null })).status, 200);
    assert.equal((await legacyLogin(leaf)).status, 401);
    assert.equal(lastRefusal(), 'no certificate authenticator has this certificate');
    assert.equal((await admin.patch(`/cas/${caId}`, { externalIdClaim: CLAIM })).status, 200);
    assert.equal((await legacyLogin(leaf)).status, 200, 'the claim back, the certificate logs in again');
  });
});
