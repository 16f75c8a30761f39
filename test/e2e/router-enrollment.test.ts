/**
 * Edge router enrollment and certificate extension end to end, with keys and CSRs made by `openssl`: a router
 * enrolls with its one-time token (`POST /enroll?method=erott`, `/enroll/erott`), gets a client and a server
 * certificate, and later extends them over mutual TLS, after which its previous certificate is refused though
 * unexpired (spec: Router certificate extension). Every refused request is shown to change nothing.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { recordChange } from '../../src/persistence/repositories/authorization-changes.js';
import { splitPemCertificates } from '../../src/pki/index.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { brokenSignature, opensslCsr, opensslFingerprint, opensslKey, opensslKeyAndCsr } from '../helpers/openssl.js';

const CLIENT = '/edge/client/v1';
const SERVER_NAMES = ['DNS:router-a.example.test', 'IP:10.1.2.3'];

describe(`edge router enrollment and extension (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  before(async () => {
    ctl = await startTestController();
    admin = managementClient(ctl, await ctl.adminToken());
  });
  after(async () => ctl.close());

  const newRouter = async (name: string) => {
    const id = await createdId(admin, '/edge-routers', { name });
    const detail = (await admin.get(`/edge-routers/${id}`)).json().data;
    return { id, token: detail.enrollmentToken as string, jwt: detail.enrollmentJwt as string };
  };
  const routerDetail = async (id: string) => (await admin.get(`/edge-routers/${id}`)).json().data;
  /** One key, two CSRs from it (as the router does), the client one named by the router id. */
  const routerCsrs = (routerId: string, names = SERVER_NAMES, keyPem = opensslKey()) => ({
    keyPem,
    body: { certCsr: opensslCsr(keyPem, routerId), serverCertCsr: opensslCsr(keyPem, routerId, names) },
  });
  const enroll = (token: string, body: unknown, path = '/enroll?method=erott&') => ctl.fetch(`${CLIENT}${path}token=${token}`, { method: 'POST', body: body as object });
  const extend = (body: unknown, cert?: { cert: string; key: string }) => ctl.fetch(`${CLIENT}/enroll/extend/router`, { method: 'POST', body: body as object, ...(cert ?? {}) });
  const enrolled = async (name: string) => {
    const router = await newRouter(name);
    const csrs = routerCsrs(router.id);
    const res = await enroll(router.token, csrs.body);
    if (res.status !== 200) throw new Error(`enrollment failed: ${res.status} ${res.text}`);
    return { ...router, keyPem: csrs.keyPem, certs: res.json().data as { ca: string; cert: string; serverCert: string } };
  };
  const unchanged = async (id: string) => {
    const detail = await routerDetail(id);
    return detail.isVerified === false && detail.fingerprint === null && typeof detail.enrollmentToken === 'string';
  };

  it('verifies the router JWT against the enrollment JWKS and enrolls with its token and openssl CSRs', async () => {
    const router = await newRouter('router-a');
    const jwks = (await ctl.fetch(`${CLIENT}/enroll/jwks`)).json();
    const { payload } = await jwtVerify(router.jwt, createLocalJWKSet(jwks), { audience: 'svc-enroller', issuer: ctl.baseUrl });
    assert.equal(payload.em, 'erott');
    assert.equal(payload.sub, router.id);
    assert.equal(payload.jti, router.token);

    const csrs = routerCsrs(router.id);
    const res = await enroll(router.token, csrs.body);
    assert.equal(res.status, 200, res.text);
    const { ca, cert, serverCert } = res.json().data;
    const client = new X509Certificate(splitPemCertificates(cert)[0]!);
    const server = new X509Certificate(splitPemCertificates(serverCert)[0]!);
    assert.equal(client.subject, `CN=${router.id}`);
    assert.deepEqual(client.keyUsage, ['1.3.6.1.5.5.7.3.2'], 'client certificate: clientAuth');
    assert.deepEqual(server.keyUsage, ['1.3.6.1.5.5.7.3.1'], 'server certificate: serverAuth');
    assert.equal(server.subjectAltName, 'DNS:router-a.example.test, IP Address:10.1.2.3', 'the names of the CSR');
    assert.ok(splitPemCertificates(ca).length >= 1);
    assert.equal(client.checkPrivateKey((await import('node:crypto')).createPrivateKey(csrs.keyPem)), true, 'issued for the router key');
    const chain = splitPemCertificates(cert).map((pem) => new X509Certificate(pem));
    assert.equal(chain[0]!.verify(chain[1]!.publicKey), true, 'the chain follows the leaf');

    const detail = await routerDetail(router.id);
    assert.equal(detail.isVerified, true);
    assert.equal(detail.fingerprint, opensslFingerprint(cert));
    assert.equal(detail.enrollmentToken, null, 'the enrollment is consumed');
    assert.equal(detail.enrollmentJwt, null);
  });

  it('accepts POST /enroll/erott with the token in the query or in the reference body {clientCsr, serverCsr, token}', async () => {
    const first = await newRouter('router-erott-query');
    const viaQuery = await enroll(first.token, routerCsrs(first.id).body, '/enroll/erott?');
    assert.equal(viaQuery.status, 200, viaQuery.text);
    const second = await newRouter('router-erott-body');
    const { body } = routerCsrs(second.id);
    const viaBody = await ctl.fetch(`${CLIENT}/enroll/erott`, { method: 'POST', body: { clientCsr: body.certCsr, serverCsr: body.serverCertCsr, token: second.token } });
    assert.equal(viaBody.status, 200, viaBody.text);
    assert.ok(viaBody.json().data.serverCert);
  });

  it('refuses a used token with 410 saying it was already used, and keeps the first certificate', async () => {
    const router = await enrolled('router-twice');
    const again = await enroll(router.token, routerCsrs(router.id).body);
    assert.equal(again.status, 410);
    assert.equal(again.json().error.code, 'INVALID_ENROLLMENT_ALREADY_ENROLLED');
    assert.match(again.json().error.message, /already used, at /);
    const unknown = await enroll('00000000-0000-4000-8000-000000000000', routerCsrs(router.id).body);
    assert.equal(unknown.json().error.code, 'INVALID_ENROLLMENT_TOKEN');
    assert.equal((await routerDetail(router.id)).fingerprint, opensslFingerprint(router.certs.cert));
  });

  it('enrolls exactly once when two requests race with one token', async () => {
    for (let round = 0; round < 4; round++) {
      const router = await newRouter(`router-race-${round}`);
      const [a, b] = await Promise.all([enroll(router.token, routerCsrs(router.id).body), enroll(router.token, routerCsrs(router.id).body)]);
      assert.equal([a, b].filter((r) => r.status === 200).length, 1, `round ${round}: ${a.status} ${b.status}`);
      const [winner, loser] = a.status === 200 ? [a, b] : [b, a];
      assert.ok(['400 INVALID_ENROLLMENT_TOKEN', '410 INVALID_ENROLLMENT_ALREADY_ENROLLED'].includes(`${loser.status} ${loser.json().error.code}`), loser.text);
      assert.equal((await routerDetail(router.id)).fingerprint, opensslFingerprint(winner.json().data.cert), 'the stored certificate is the winner\'s');
    }
  });

  it('refuses an expired token with 400 ENROLLMENT_EXPIRED and leaves the enrollment for re-enrollment', async () => {
    const router = await newRouter('router-expired');
    const past = new Date(Date.now() - 60_000).toISOString();
    await ctl.running.database.db.updateTable('edge_routers').set({ enrollment_expires_at: past }).where('id', '=', router.id).execute();
    await recordChange(ctl.running.database, 'edge-router', router.id);
    const res = await enroll(router.token, routerCsrs(router.id).body);
    assert.equal(res.status, 400);
    assert.equal(res.json().error.code, 'ENROLLMENT_EXPIRED');
    assert.equal(await unchanged(router.id), true);
  });

  it('refuses bad CSRs with a 400 naming the field and the problem, and enrolls nothing', async () => {
    const router = await newRouter('router-bad-input');
    const key = opensslKey();
    const good = routerCsrs(router.id, SERVER_NAMES, key).body;
    const cases: Array<{ name: string; body: Record<string, unknown>; code: string; field: string; reason?: RegExp }> = [
      { name: 'client CN not the router id', body: { ...good, certCsr: opensslCsr(key, 'someone-else') }, code: 'EDGE_ROUTER_ENROLL_COMMON_NAME_INVALID', field: 'certCsr' },
      { name: 'weak RSA key', body: { ...good, certCsr: opensslKeyAndCsr(router.id, [], 'rsa1024').csrPem }, code: 'MISSING_OR_INVALID_CSR', field: 'certCsr', reason: /RSA of 1024 bits/ },
      { name: 'unsupported curve', body: { ...good, serverCertCsr: opensslKeyAndCsr(router.id, SERVER_NAMES, 'p224').csrPem }, code: 'MISSING_OR_INVALID_CSR', field: 'serverCertCsr', reason: /curve/ },
      { name: 'bad signature', body: { ...good, certCsr: brokenSignature(good.certCsr) }, code: 'MISSING_OR_INVALID_CSR', field: 'certCsr', reason: /signature/ },
      { name: 'URI name', body: { ...good, serverCertCsr: opensslCsr(key, router.id, ['DNS:ok.example.test', 'URI:spiffe://svc/identity/admin']) }, code: 'MISSING_OR_INVALID_CSR', field: 'serverCertCsr', reason: /URI/ },
      { name: 'wildcard name', body: { ...good, serverCertCsr: opensslCsr(key, router.id, ['DNS:*.example.test']) }, code: 'MISSING_OR_INVALID_CSR', field: 'serverCertCsr', reason: /wildcard/ },
      { name: 'no names', body: { ...good, serverCertCsr: opensslCsr(key, router.id) }, code: 'MISSING_OR_INVALID_CSR', field: 'serverCertCsr', reason: /no DNS name/ },
      { name: 'missing server CSR', body: { certCsr: good.certCsr }, code: 'MISSING_OR_INVALID_CSR', field: 'serverCertCsr' },
      { name: 'not PEM', body: { ...good, certCsr: 'hello' }, code: 'MISSING_OR_INVALID_CSR', field: 'certCsr' },
      { name: 'unknown field', body: { ...good, extra: 'x' }, code: 'COULD_NOT_VALIDATE', field: 'extra' },
    ];
    for (const c of cases) {
      const res = await enroll(router.token, c.body);
      assert.equal(res.status, 400, `${c.name}: ${res.text}`);
      const { error } = res.json();
      assert.equal(error.code, c.code, c.name);
      assert.equal(error.cause.field, c.field, c.name);
      if (c.reason) assert.match(error.cause.reason, c.reason, c.name);
    }
    assert.equal(await unchanged(router.id), true, 'nothing enrolled');
    assert.equal((await enroll(router.token, good)).status, 200, 'the token still works');
  });

  it("refuses a server certificate naming loopback or the controller's host by default, and nothing is enrolled", async () => {
    const router = await newRouter('router-local-names');
    const key = opensslKey();
    for (const names of [['DNS:localhost'], ['IP:127.0.0.1'], ['IP:::1'], ['DNS:router-a.example.test', 'IP:127.0.0.2']]) {
      const res = await enroll(router.token, routerCsrs(router.id, names, key).body);
      assert.equal(res.status, 400, `${names.join(',')}: ${res.text}`);
      assert.equal(res.json().error.code, 'MISSING_OR_INVALID_CSR');
      assert.equal(res.json().error.cause.field, 'serverCertCsr');
      assert.match(res.json().error.cause.reason, /a router cannot hold it unless edge\.enrollment\.edgeRouter\.allowLocalNames is true/);
    }
    assert.equal(await unchanged(router.id), true, 'nothing enrolled');
    assert.equal((await enroll(router.token, routerCsrs(router.id, SERVER_NAMES, key).body)).status, 200, 'other names enroll');
  });

  it('issues loopback and controller host names to a router when edge.enrollment.edgeRouter.allowLocalNames is true', async () => {
    const local = await startTestController({ modify: (config) => (config.edge.enrollment.edgeRouter = { allowLocalNames: true }) });
    try {
      const localAdmin = managementClient(local, await local.adminToken());
      const id = await createdId(localAdmin, '/edge-routers', { name: 'router-on-this-machine' });
      const token = (await localAdmin.get(`/edge-routers/${id}`)).json().data.enrollmentToken as string;
      const res = await local.fetch(`${CLIENT}/enroll?method=erott&token=${token}`, { method: 'POST', body: routerCsrs(id, ['DNS:localhost', 'IP:127.0.0.1']).body });
      assert.equal(res.status, 200, res.text);
      const server = new X509Certificate(splitPemCertificates(res.json().data.serverCert)[0]!);
      assert.match(server.subjectAltName ?? '', /DNS:localhost/);
      assert.match(server.subjectAltName ?? '', /IP Address:127\.0\.0\.1/);
    } finally {
      await local.close();
    }
  });

  it('extends over mutual TLS with the current certificate; the previous one is then refused though unexpired', async () => {
    const router = await enrolled('router-extend');
    const oldCert = { cert: router.certs.cert, key: router.keyPem };
    const rolled = routerCsrs(router.id, ['DNS:router-extend.example.test']);
    const res = await extend(rolled.body, oldCert);
    assert.equal(res.status, 200, res.text);
    const { cert, serverCert } = res.json().data;
    assert.equal(res.json().data.ca, undefined, 'extension answers cert and serverCert only');
    assert.equal((await routerDetail(router.id)).fingerprint, opensslFingerprint(cert));
    assert.equal(new X509Certificate(splitPemCertificates(serverCert)[0]!).subjectAltName, 'DNS:router-extend.example.test');
    assert.ok(new Date(new X509Certificate(splitPemCertificates(router.certs.cert)[0]!).validTo).getTime() > Date.now(), 'the old certificate has not expired');

    const withOld = await extend(routerCsrs(router.id).body, oldCert);
    assert.equal(withOld.status, 401, withOld.text);
    assert.equal(withOld.json().error.code, 'UNAUTHORIZED');
    assert.equal((await routerDetail(router.id)).fingerprint, opensslFingerprint(cert), 'the refused request changed nothing');

    const withNew = await extend(routerCsrs(router.id).body, { cert, key: rolled.keyPem });
    assert.equal(withNew.status, 200, withNew.text);
  });

  it('extends exactly once when two requests race with one certificate', async () => {
    const router = await enrolled('router-extend-race');
    const tls = { cert: router.certs.cert, key: router.keyPem };
    const [a, b] = await Promise.all([extend(routerCsrs(router.id).body, tls), extend(routerCsrs(router.id).body, tls)]);
    assert.equal([a, b].filter((r) => r.status === 200).length, 1, `${a.status} ${b.status}`);
    const [winner, loser] = a.status === 200 ? [a, b] : [b, a];
    assert.equal(loser.status, 401, loser.text);
    assert.equal((await routerDetail(router.id)).fingerprint, opensslFingerprint(winner.json().data.cert));
  });

  it('refuses extension without a client certificate, or with one that is no router\'s current certificate (401)', async () => {
    const router = await enrolled('router-extend-refusals');
    const body = routerCsrs(router.id).body;
    const none = await extend(body);
    assert.equal(none.status, 401);
    assert.match(none.json().error.message, /no client certificate/);
    const other = await enrolled('router-other');
    // Another router's certificate is that router's: it extends that router, never this one (the CN must match it).
    const crossed = await extend(body, { cert: other.certs.cert, key: other.keyPem });
    assert.equal(crossed.status, 400);
    assert.equal(crossed.json().error.code, 'EDGE_ROUTER_ENROLL_COMMON_NAME_INVALID');
    assert.equal((await routerDetail(router.id)).fingerprint, opensslFingerprint(router.certs.cert));
    assert.equal((await routerDetail(other.id)).fingerprint, opensslFingerprint(other.certs.cert));
    const missing = await extend({ certCsr: body.certCsr }, { cert: router.certs.cert, key: router.keyPem });
    assert.equal(missing.status, 400);
    assert.equal(missing.json().error.cause.field, 'serverCertCsr');
  });

  it('lists the router, challenge, network JWT and ephemeral certificate operations in the served OpenAPI document', async () => {
    const spec = (await ctl.fetch(`${CLIENT}/specs/edge-client/spec`)).json().data;
    for (const path of ['/enroll/erott', '/enroll/extend/router', '/enroll/challenge', '/network-jwts', '/current-api-session/certificates', '/current-api-session/certificates/{id}']) {
      assert.ok(spec.paths[path], `${path} is documented`);
    }
  });
});
