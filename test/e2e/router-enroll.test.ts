/**
 * `svc router enroll --jwt FILE --config router.yml` against a real controller over TLS on loopback (issue 41
 * must-have 1): the router makes its key, checks the JWT against the certificate the controller presents, pins the
 * controller's CA bundle and writes its identity and endpoints files. Every refusal (used, expired, foreign or
 * identity JWT; no SANs; an unwritable folder; a bad config) says what is wrong in one sentence and writes nothing.
 */
import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { createControllerPki } from '../../src/pki/index.js';
import { enrollWithJwt } from '../../src/router/enrollment/enroll.js';
import { loadRouterIdentity } from '../../src/router/enrollment/identity-files.js';
import { RouterSetupError } from '../../src/router/errors.js';
import { readEndpointsFile } from '../../src/router/endpoints-file.js';
import { validateRouterConfig } from '../../src/router-config/validate.js';
import { manualClock } from '../../src/shared/clock.js';
import { recordChange } from '../../src/persistence/repositories/authorization-changes.js';
import { runCliInProcess as runCli } from '../helpers/cli-in-process.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createEnrollment } from '../helpers/enrollment.js';
import { createdId, managementClient } from '../helpers/management.js';
import { opensslKey } from '../helpers/openssl.js';
import { request } from '../helpers/https.js';
import { edgeRouterDetail, newEdgeRouter, routerHome, type RouterHome } from '../helpers/router-home.js';

const sha1Hex = (pem: string) => new X509Certificate(pem).fingerprint.replace(/:/g, '').toLowerCase();
const enroll = (home: RouterHome) => runCli(['router', 'enroll', '--jwt', home.jwtFile, '--config', home.config]);

describe(`svc router enroll (${testDialect})`, () => {
  let ctl: TestController;
  const homes: RouterHome[] = [];
  const home = (jwt: string, modify?: (config: Record<string, any>) => void) => {
    const made = routerHome(jwt, modify);
    homes.push(made);
    return made;
  };
  before(async () => {
    ctl = await startTestController();
  });
  after(async () => {
    for (const made of homes) made.remove();
    await ctl.close();
  });

  it('enrolls: writes the key (0600), both certificates, the pinned CA bundle and the endpoints file, and prints the next command', async () => {
    const router = await newEdgeRouter(ctl, 'er-enroll');
    const h = home(router.jwt);

    const { code, stdout, stderr } = await enroll(h);

    assert.equal(code, 0, stderr);
    assert.match(stdout, new RegExp(`enrolled edge router ${router.id} with the controller at ${ctl.baseUrl}`));
    assert.match(stdout, /identity\.key .*certs\/key\.pem/);
    assert.match(stdout, new RegExp(`next: svc router run --config ${h.config}`));
    const identity = await loadRouterIdentity({ cert: 'certs/client.pem', server_cert: 'certs/server.pem', key: 'certs/key.pem', ca: 'certs/ca.pem' }, h.dir);
    assert.equal(sha1Hex(identity.certPem), (await edgeRouterDetail(ctl, router.id)).fingerprint, 'the controller holds this client certificate');
    assert.equal(identity.clientLeaf.subject, `CN=${router.id}`);
    assert.match(identity.serverLeaf.subjectAltName ?? '', /DNS:router-a\.example\.test/);
    assert.equal(createPrivateKey(identity.keyPem).asymmetricKeyDetails?.namedCurve, 'prime256v1', 'EC P-256 by default');
    assert.equal(statSync(h.files.key).mode & 0o777, 0o600);
    assert.equal(statSync(h.files.endpoints).mode & 0o777, 0o600);
    assert.deepEqual(await readEndpointsFile(h.files.endpoints), { ctrl: ['tls:127.0.0.1:6262'], api: ctl.baseUrl });
    const pinned = await request(`${ctl.baseUrl}/edge/client/v1/version`, { ca: identity.caPem });
    assert.equal(pinned.status, 200, 'the pinned bundle verifies the controller');
    assert.deepEqual(Object.keys(h.written()).sort(), ['certs/ca.pem', 'certs/client.pem', 'certs/key.pem', 'certs/server.pem', 'endpoints.yml'], 'no temporary file is left');
  });

  it('makes the key csr.keyType names, and keeps an existing identity.key of that type', async () => {
    const rsa = await newEdgeRouter(ctl, 'er-rsa');
    const h1 = home(rsa.jwt, (config) => (config.csr.keyType = 'rsa-2048'));
    assert.equal((await enroll(h1)).code, 0);
    assert.equal(createPrivateKey(h1.written()['certs/key.pem'] as string).asymmetricKeyDetails?.modulusLength, 2048);

    const p384 = await newEdgeRouter(ctl, 'er-p384');
    const h2 = home(p384.jwt, (config) => (config.csr.keyType = 'ec-p384'));
    const existing = opensslKey('p384');
    writeFileSync(h2.files.key, existing, { mode: 0o600 });
    const { code, stdout } = await enroll(h2);
    assert.equal(code, 0);
    assert.match(stdout, /kept the existing key of identity\.key/);
    assert.equal(h2.written()['certs/key.pem'], existing, 'the key file is untouched');
    const cert = new X509Certificate(h2.written()['certs/client.pem'] as string);
    assert.equal(cert.checkPrivateKey(createPrivateKey(existing)), true, 'the certificate is for the existing key');
  });

  it('refuses a used JWT with the controller\'s message and changes no file', async () => {
    const router = await newEdgeRouter(ctl, 'er-used');
    const h = home(router.jwt);
    assert.equal((await enroll(h)).code, 0);
    const before = h.written();

    const again = await enroll(h);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /svc: the controller at https:\/\/127\.0\.0\.1:\d+ refused the enrollment: 410 INVALID_ENROLLMENT_ALREADY_ENROLLED: This enrollment token was already used, at .*nothing was written/);
    assert.deepEqual(h.written(), before, 'every file as the first enrollment left it');

    const elsewhere = home(router.jwt);
    assert.equal((await enroll(elsewhere)).code, 1);
    assert.deepEqual(elsewhere.written(), {}, 'a new folder stays empty');
  });

  it('refuses an expired JWT before contacting the controller, and an enrollment the controller has expired, writing nothing', async () => {
    const router = await newEdgeRouter(ctl, 'er-expired');
    const h = home(router.jwt);
    const { config } = validateRouterConfig(readFileSync(h.config, 'utf8'), h.config);
    const later = manualClock(new Date(Date.now() + 400 * 24 * 3_600_000));
    await assert.rejects(
      enrollWithJwt({ configPath: h.config, config: config!, jwtFile: h.jwtFile, jwt: router.jwt, clock: later }),
      (error: Error) => error instanceof RouterSetupError && /router\.jwt: the enrollment JWT expired at \d{4}-\d\d-\d\dT.*Z; ask for a new one/.test(error.message),
    );
    assert.deepEqual(h.written(), {});

    await ctl.running.database.db.updateTable('edge_routers').set({ enrollment_expires_at: new Date(Date.now() - 60_000).toISOString() }).where('id', '=', router.id).execute();
    await recordChange(ctl.running.database, 'edge-router', router.id);
    const refused = await enroll(h);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /refused the enrollment: 400 ENROLLMENT_EXPIRED: The edge router enrollment expired at .*nothing was written/);
    assert.deepEqual(h.written(), {});
  });

  it('refuses a JWT when nothing answers at its address, or a server that did not sign it (another network), writing nothing', async () => {
    const otherPkiDir = mkdtempSync(join(tmpdir(), 'svc-other-pki-'));
    try {
      const other = await createControllerPki(otherPkiDir, { hosts: ['127.0.0.1'], commonName: 'other-network' });
      const useOtherPki = (config: Record<string, any>) => {
        config.identity = { cert: other.clientCert, key: other.clientKey, server_cert: other.serverCert, server_key: other.serverKey, ca: other.caBundle };
        config.edge.enrollment.signingCert = { cert: other.intermediateCert, key: other.intermediateKey };
      };
      const foreign = await startTestController({ modify: useOtherPki });
      const otherCa = readFileSync(other.caBundle, 'utf8');
      const router = await newEdgeRouter({ ...foreign, fetch: (path, options = {}) => request(`${foreign.baseUrl}${path}`, { ...options, ca: otherCa }) }, 'er-foreign');
      const ports = foreign.ports;
      await foreign.close();
      const nobody = home(router.jwt);
      const down = await enroll(nobody);
      assert.equal(down.code, 1);
      assert.match(down.stderr, /svc: cannot reach the controller at https:\/\/127\.0\.0\.1:\d+ \(connect ECONNREFUSED/, 'nothing answers at the address');
      assert.deepEqual(nobody.written(), {});
      // The JWT names that address; a controller of this test's network now answers there.
      const impostor = await startTestController({ ports });
      try {
        const h = home(router.jwt);
        const { code, stderr } = await enroll(h);
        assert.equal(code, 1);
        assert.match(stderr, /router\.jwt: the JWT was not signed by the controller at https:\/\/127\.0\.0\.1:\d+ \(its signature does not verify with the certificate that server presents\).*nothing was written/);
        assert.deepEqual(h.written(), {});
      } finally {
        await impostor.close();
      }
    } finally {
      rmSync(otherPkiDir, { recursive: true, force: true });
    }
  });

  it('refuses an identity\'s JWT, naming what it enrolls', async () => {
    const admin = managementClient(ctl, await ctl.adminToken());
    const identityId = await createdId(admin, '/identities', { name: 'device-1', type: 'Device', isAdmin: false });
    const { jwt } = await createEnrollment(ctl, { identityId, method: 'ott' });
    const h = home(jwt);
    const { code, stderr } = await enroll(h);
    assert.equal(code, 1);
    assert.match(stderr, /router\.jwt: this JWT enrolls an identity \(method ott, enrolled with svc edge enroll\), not a router/);
    assert.deepEqual(h.written(), {});
  });

  it('refuses a config whose csr.sans names nothing, before spending the token (which then still enrolls)', async () => {
    const router = await newEdgeRouter(ctl, 'er-no-sans');
    const bare = home(router.jwt, (config) => (config.csr = { organization: 'ops' }));
    const { code, stderr } = await enroll(bare);
    assert.equal(code, 1);
    assert.match(stderr, /warning: csr: no valid SAN/, 'the validator\'s warning is printed');
    assert.match(stderr, /svc: .*router\.yml: csr\.sans names nothing; at least one valid SAN is needed/);
    assert.deepEqual(bare.written(), {});
    assert.equal((await enroll(home(router.jwt))).code, 0, 'positive control: the same JWT with SANs enrolls');
  });

  it('refuses an identity folder it cannot write to, before spending the token, and leaves nothing behind', async () => {
    const router = await newEdgeRouter(ctl, 'er-unwritable');
    const h = home(router.jwt, (config) => (config.identity.server_cert = 'not-a-folder/server.pem'));
    writeFileSync(join(h.dir, 'not-a-folder'), 'a file where the folder should be');
    const { code, stderr } = await enroll(h);
    assert.equal(code, 1);
    assert.match(stderr, /svc: identity\.server_cert .*not-a-folder\/server\.pem: cannot write in the folder .*not-a-folder \(ENOTDIR.*\); nothing was written/);
    assert.deepEqual(Object.keys(h.written()), ['not-a-folder'], 'no certificate, key or temporary file');
    assert.equal((await edgeRouterDetail(ctl, router.id)).isVerified, false, 'the token is not spent');
    assert.equal((await enroll(home(router.jwt))).code, 0, 'positive control: a writable folder enrolls');
  });

  it('refuses a config with errors, printing them, and contacts nobody', async () => {
    const router = await newEdgeRouter(ctl, 'er-bad-config');
    const h = home(router.jwt, (config) => (config.csr.keyType = 'dsa-1024'));
    const { code, stderr } = await enroll(h);
    assert.equal(code, 1);
    assert.match(stderr, /router\.yml:\d+:\d+: error: csr\.keyType: must be one of 'ec-p256', 'ec-p384', 'rsa-2048', 'rsa-3072', 'rsa-4096'/);
    assert.deepEqual(h.written(), {});
    assert.equal((await edgeRouterDetail(ctl, router.id)).isVerified, false);
  });

  it('writes the endpoints file with every ctrl.endpoints address when ctrl.endpoint is not given', async () => {
    const router = await newEdgeRouter(ctl, 'er-endpoints');
    const h = home(router.jwt, (config) => (config.ctrl = { endpoints: ['tls:ctrl1.example.test:6262', 'tls:ctrl2.example.test:6262'] }));
    assert.equal((await enroll(h)).code, 0);
    const text = h.written()['endpoints.yml'] as string;
    assert.match(text, /^# Written by svc router/);
    assert.deepEqual(parse(text), { ctrl: ['tls:ctrl1.example.test:6262', 'tls:ctrl2.example.test:6262'], api: ctl.baseUrl });
  });
});
