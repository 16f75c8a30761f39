/**
 * The guide "give an identity access to a service" (docs/guides/apis.md) done only with `svc edge` commands, enrollment into an
 * SDK identity file that then logs in by certificate, names resolved wherever ids are accepted, and JSON output:
 * real `svc` processes against a real controller on loopback over TLS.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { splitPemCertificates } from '../../src/pki/index.js';
import { verifiedCa } from '../helpers/cas.js';
import { cliUser } from '../helpers/cli.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { request } from '../helpers/https.js';
import { makeOpensslPki } from '../helpers/openssl-pki.js';

describe(`svc edge resource commands (${testDialect})`, () => {
  let ctl: TestController;
  let xdg: string;
  let work: string;
  const { svc, ok } = cliUser(() => xdg);

  before(async () => {
    ctl = await startTestController();
    await ctl.adminToken();
    xdg = mkdtempSync(join(tmpdir(), 'svc-cli-edge-'));
    work = mkdtempSync(join(tmpdir(), 'svc-cli-work-'));
    await ok('edge', 'login', ctl.baseUrl, '--yes', '-u', 'admin', '-p', 'admin-password');
  });
  after(async () => {
    rmSync(xdg, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
    await ctl.close();
  });

  it("gives an identity access to a service with the README guide's svc edge commands", async () => {
    const jwtFile = join(work, 'alice.jwt');
    assert.match(await ok('edge', 'create', 'identity', 'alice', '--role-attributes', 'sales', '-o', jwtFile), /^created identity alice \(\S+\)\nenrollment JWT written to /);
    assert.equal(statSync(jwtFile).mode & 0o777, 0o600);
    await ok('edge', 'create', 'service', 'crm', '--role-attributes', 'crm');
    await ok('edge', 'create', 'service-policy', 'sales-dial-crm', 'Dial', '--semantic', 'AnyOf', '--identity-roles', '#sales', '--service-roles', '#crm');
    const routerJwt = join(work, 'er-1.jwt');
    await ok('edge', 'create', 'edge-router', 'er-1', '--role-attributes', 'public', '-o', routerJwt);
    assert.equal(readFileSync(routerJwt, 'utf8').split('.').length, 3);
    await ok('edge', 'create', 'edge-router-policy', 'sales-er', '--semantic', 'AnyOf', '--identity-roles', '#sales', '--edge-router-roles', '#public');
    await ok('edge', 'create', 'service-edge-router-policy', 'crm-er', '--semantic', 'AnyOf', '--service-roles', '#crm', '--edge-router-roles', '#public');

    const advice = await ok('edge', 'policy-advice', 'alice', 'crm');
    assert.match(advice, /^identity alice -> service crm\n {2}may dial: yes\n {2}may bind: no\n/);
    assert.match(advice, /1 in common \(er-1 offline\)/);
    const adviceJson = JSON.parse(await ok('edge', 'policy-advice', 'alice', 'crm', '--json'));
    assert.equal(adviceJson.isDialAllowed, true);

    const table = (await ok('edge', 'list', 'service-policies')).split('\n');
    assert.match(table[0] as string, /^id +name +type +semantic +identityRoles +serviceRoles$/);
    assert.match(table[1] as string, /^\S+ +sales-dial-crm +Dial +AnyOf +#sales +#crm$/);
    assert.equal(table[2], 'results: 1-1 of 1');
  });

  it('enrolls with the JWT into an SDK identity file that then authenticates by certificate', async () => {
    const jwtFile = join(work, 'bob.jwt');
    await ok('edge', 'create', 'identity', 'bob', '-o', jwtFile);
    const identityFile = join(work, 'bob.json');
    assert.match(await ok('edge', 'enroll', jwtFile, '-o', identityFile), /^enrolled identity \S+ with https:\/\/127\.0\.0\.1:\d+; identity file written to /);
    assert.equal(statSync(identityFile).mode & 0o777, 0o600);
    const identity = JSON.parse(readFileSync(identityFile, 'utf8'));
    assert.equal(identity.ztAPI, `${ctl.baseUrl}/edge/client/v1`);
    for (const part of ['cert', 'key', 'ca'] as const) assert.match(identity.id[part], /^pem:-----BEGIN /, part);
    const pem = (value: string) => value.slice('pem:'.length);

    // Only what the file holds: its CA bundle to trust the controller, its certificate and key to be trusted.
    const login = await request(`${identity.ztAPI}/authenticate?method=cert`, { method: 'POST', body: {}, ca: pem(identity.id.ca), cert: pem(identity.id.cert), key: pem(identity.id.key) });
    assert.equal(login.status, 200, login.text);
    assert.equal(login.json().data.identity.name, 'bob');

    const again = await svc('edge', 'enroll', jwtFile, '-o', join(work, 'bob-again.json'));
    assert.equal(again.code, 1);
    assert.match(again.stderr, /svc: the controller refused the enrollment: HTTP 4\d\d /);
  });

  it('names entities by name wherever an id is accepted, and refuses unknown and ambiguous names', async () => {
    const carol = JSON.parse(await ok('edge', 'create', 'identity', 'carol', '--json'));
    const byName = JSON.parse(await ok('edge', 'get', 'identity', 'carol'));
    assert.equal(byName.id, carol.id);
    assert.deepEqual(JSON.parse(await ok('edge', 'get', 'identities', carol.id)).name, 'carol');

    assert.equal(await ok('edge', 'update', 'identity', 'carol', '--role-attributes', 'sales,vip', '--tags', 'site=s1'), `updated identity carol (${carol.id})\n`);
    const updated = JSON.parse(await ok('edge', 'get', 'identity', 'carol'));
    assert.deepEqual([...updated.roleAttributes].sort(), ['sales', 'vip']);
    assert.deepEqual(updated.tags, { site: 's1' });

    // A name that is another identity's id cannot be told apart: refused, naming both.
    await ok('edge', 'create', 'identity', carol.id);
    const ambiguous = await svc('edge', 'get', 'identity', carol.id);
    assert.equal(ambiguous.code, 2);
    assert.match(ambiguous.stderr, new RegExp(`svc: '${carol.id}' is ambiguous: it names 2 identities .*; give an id`));

    const missing = await svc('edge', 'delete', 'identity', 'nobody');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /svc: no identity has the id or name 'nobody'/);

    // References inside bodies too: a config type and a config by name, a role `@name` by name.
    await ok('edge', 'create', 'config-type', 'web-type');
    await ok('edge', 'create', 'config', 'web-cfg', '--config-type-id', 'web-type', '--config-data', '{"port": 80}');
    const config = JSON.parse(await ok('edge', 'get', 'config', 'web-cfg'));
    await ok('edge', 'create', 'service', 'web', '--configs', 'web-cfg');
    assert.deepEqual(JSON.parse(await ok('edge', 'get', 'service', 'web')).configs, [config.id]);
    // A list option given twice adds to the list rather than keeping the last one.
    await ok('edge', 'create', 'service-policy', 'carol-binds-web', 'Bind', '--identity-roles', '@carol', '--identity-roles', '#web-hosts', '--service-roles', '@web');
    const policy = JSON.parse(await ok('edge', 'get', 'service-policy', 'carol-binds-web'));
    assert.deepEqual(policy.identityRoles, [`@${carol.id}`, '#web-hosts']);

    assert.equal(await ok('edge', 'delete', 'service-policy', 'carol-binds-web'), `deleted service-policy carol-binds-web (${policy.id})\n`);
    const gone = await svc('edge', 'get', 'service-policy', 'carol-binds-web');
    assert.equal(gone.code, 1);
  });

  it('lists with a filter, a limit and --json, and reads a whole body from --data', async () => {
    const data = join(work, 'files.json');
    writeFileSync(data, JSON.stringify({ name: 'from-file', roleAttributes: ['files'] }));
    await ok('edge', 'create', 'service', '--data', data, '--role-attributes', 'files,shared');
    const listed = JSON.parse(await ok('edge', 'list', 'services', 'name = "from-file"', '--json'));
    assert.equal(listed.length, 1);
    assert.equal(listed[0].name, 'from-file');
    assert.deepEqual([...listed[0].roleAttributes].sort(), ['files', 'shared']);

    const limited = (await ok('edge', 'list', 'identities', '--limit', '1', '--columns', 'name,isAdmin')).split('\n');
    assert.equal(limited[0], 'name   isAdmin');
    assert.match(limited[2] as string, /^results: 1-1 of \d+$/);

    const badFilter = await svc('edge', 'list', 'services', 'name ~ 1');
    assert.equal(badFilter.code, 1);
    assert.match(badFilter.stderr, /svc: the controller refused GET \/services: HTTP 400 INVALID_FILTER/);
    const duplicate = await svc('edge', 'create', 'service', 'from-file');
    assert.equal(duplicate.code, 1);
    assert.match(duplicate.stderr, /svc: the controller refused POST \/services: HTTP 4\d\d /);

    const version = JSON.parse(await ok('edge', 'version'));
    assert.equal(typeof version.version, 'string');
    assert.ok(version.apiVersions['edge-management']);
  });

  it("writes the controller's own CAs as the identity file's id.ca, never a verified third-party CA", async () => {
    const partner = makeOpensslPki('Partner');
    try {
      await verifiedCa(ctl, partner, 'partner');
      const jwtFile = join(work, 'dana.jwt');
      await ok('edge', 'create', 'identity', 'dana', '-o', jwtFile);
      const identityFile = join(work, 'dana.json');
      await ok('edge', 'enroll', jwtFile, '-o', identityFile);
      const ca = JSON.parse(readFileSync(identityFile, 'utf8')).id.ca.slice('pem:'.length) as string;
      const fingerprints = (bundle: string) => splitPemCertificates(bundle).map((pem) => new X509Certificate(pem).fingerprint256).sort();
      assert.equal(fingerprints(ca).includes(new X509Certificate(partner.root.certPem).fingerprint256), false, 'the partner CA is not trusted for the controller');
      assert.deepEqual(fingerprints(ca), fingerprints(ctl.ca));
    } finally {
      partner.dispose();
    }
  });
});
