/**
 * The related lists (`svc edge list RESOURCE RELATION ID|NAME`) and actions (`svc edge do RESOURCE ACTION ID|NAME`)
 * generated from the Management API document, and `svc edge --help` naming every resource the controller serves:
 * real `svc` processes against a real controller on loopback over TLS.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliUser } from '../helpers/cli.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { makeOpensslPki, type OpensslPki } from '../helpers/openssl-pki.js';

describe(`svc edge related lists and actions (${testDialect})`, () => {
  let ctl: TestController;
  let xdg: string;
  let work: string;
  let pki: OpensslPki;
  const { svc, ok } = cliUser(() => xdg);

  before(async () => {
    ctl = await startTestController();
    await ctl.adminToken();
    xdg = mkdtempSync(join(tmpdir(), 'svc-cli-related-'));
    work = mkdtempSync(join(tmpdir(), 'svc-cli-related-work-'));
    pki = makeOpensslPki('Acme');
    await ok('edge', 'login', ctl.baseUrl, '--yes', '-u', 'admin', '-p', 'admin-password');
    await ok('edge', 'create', 'identity', 'alice', '--role-attributes', 'sales');
    await ok('edge', 'create', 'service', 'crm', '--role-attributes', 'crm');
    await ok('edge', 'create', 'service', 'wiki', '--role-attributes', 'wiki');
    await ok('edge', 'create', 'service-policy', 'sales-dial-crm', 'Dial', '--semantic', 'AnyOf', '--identity-roles', '#sales', '--service-roles', '#crm');
    await ok('edge', 'create', 'service-policy', 'alice-binds-wiki', 'Bind', '--identity-roles', '@alice', '--service-roles', '@wiki');
  });
  after(async () => {
    pki.dispose();
    rmSync(xdg, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
    await ctl.close();
  });

  it("lists an identity's services by the identity's name, as a table and as JSON", async () => {
    const table = (await ok('edge', 'list', 'identity', 'services', 'alice')).trim().split('\n');
    assert.match(table[0] as string, /^id +name +roleAttributes$/);
    assert.deepEqual(table.slice(1, -1).map((line) => line.split(/ +/)[1]).sort(), ['crm', 'wiki']);
    assert.equal(table.at(-1), 'results: 1-2 of 2');

    const json = JSON.parse(await ok('edge', 'list', 'identities', 'services', 'alice', '--json'));
    assert.deepEqual(json.map((s: { name: string }) => s.name).sort(), ['crm', 'wiki']);
    // A filter narrows the related list as it does a list.
    const filtered = JSON.parse(await ok('edge', 'list', 'identity', 'services', 'alice', 'name = "crm"', '--json'));
    assert.deepEqual(filtered.map((s: { name: string }) => s.name), ['crm']);
    // The other direction, by the service's name.
    const identities = JSON.parse(await ok('edge', 'list', 'service', 'identities', 'crm', '--json'));
    assert.deepEqual(identities.map((i: { name: string }) => i.name), ['alice']);
    // Paging as for lists: one item a page, or every page with --all (which takes no --limit).
    const first = (await ok('edge', 'list', 'identity', 'services', 'alice', '--limit', '1')).trim().split('\n');
    assert.equal(first.at(-1), 'results: 1-1 of 2');
    const every = JSON.parse(await ok('edge', 'list', 'identity', 'services', 'alice', '--all', '--policy-type', 'dial', '--json'));
    assert.deepEqual(every.map((s: { name: string }) => s.name), ['crm']);
    const both = await svc('edge', 'list', 'identity', 'services', 'alice', '--all', '--limit', '1');
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--all fetches every page itself; leave out --limit/);
  });

  it('passes the query parameters the document declares as options (--policy-type)', async () => {
    const dial = JSON.parse(await ok('edge', 'list', 'identity', 'services', 'alice', '--policy-type', 'dial', '--json'));
    assert.deepEqual(dial.map((s: { name: string }) => s.name), ['crm']);
    const bind = JSON.parse(await ok('edge', 'list', 'identity', 'services', 'alice', '--policy-type', 'bind', '--json'));
    assert.deepEqual(bind.map((s: { name: string }) => s.name), ['wiki']);
    const wrong = await svc('edge', 'list', 'identity', 'services', 'alice', '--policy-type', 'dail');
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /--policy-type.*expected one of dial, bind/);
  });

  it('disables and enables an identity (actions without a body), as its detail then shows', async () => {
    const missing = await svc('edge', 'do', 'identity', 'disable', 'alice');
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /missing --duration-minutes/);
    assert.equal(JSON.parse(await ok('edge', 'get', 'identity', 'alice')).disabled, false, 'a refused command changes nothing');

    assert.match(await ok('edge', 'do', 'identity', 'disable', 'alice', '--duration-minutes', '0'), /^disable identity alice \(\S+\): done/);
    assert.equal(JSON.parse(await ok('edge', 'get', 'identity', 'alice')).disabled, true);
    assert.match(await ok('edge', 'do', 'identities', 'enable', 'alice'), /^enable identity alice \(\S+\): done/);
    assert.equal(JSON.parse(await ok('edge', 'get', 'identity', 'alice')).disabled, false);
  });

  it('verifies a third-party CA with a PEM file (--cert) and writes its enrollment JWT', async () => {
    const rootFile = join(work, 'root.pem');
    writeFileSync(rootFile, pki.root.certPem);
    await ok('edge', 'create', 'ca', 'acme', '--cert-pem', pki.root.certPem, '--identity-roles', 'acme', '--auth-enabled');
    const token = JSON.parse(await ok('edge', 'get', 'ca', 'acme')).verificationToken as string;

    const noCert = await svc('edge', 'do', 'ca', 'verify', 'acme');
    assert.equal(noCert.code, 2);
    assert.match(noCert.stderr, /--cert <file>/);
    const unreadable = await svc('edge', 'do', 'ca', 'verify', 'acme', '--cert', join(work, 'absent.pem'));
    assert.equal(unreadable.code, 2);
    assert.match(unreadable.stderr, /--cert: cannot read/);
    // The CA's own certificate does not carry the verification token: the controller refuses, nothing changes.
    const wrongName = await svc('edge', 'do', 'ca', 'verify', 'acme', '--cert', rootFile);
    assert.equal(wrongName.code, 1);
    assert.match(wrongName.stderr, /INVALID_COMMON_NAME/);
    assert.equal(JSON.parse(await ok('edge', 'get', 'ca', 'acme')).isVerified, false);

    const proofFile = join(work, 'proof.pem');
    writeFileSync(proofFile, pki.issue(token, { signer: pki.root, extensions: ['basicConstraints=CA:FALSE'] }).certPem);
    assert.match(await ok('edge', 'do', 'ca', 'verify', 'acme', '--cert', proofFile), /^verify ca acme \(\S+\): done/);
    assert.equal(JSON.parse(await ok('edge', 'get', 'ca', 'acme')).isVerified, true);

    const jwtFile = join(work, 'acme.jwt');
    await ok('edge', 'do', 'ca', 'jwt', 'acme', '-o', jwtFile);
    const claims = JSON.parse(Buffer.from(readFileSync(jwtFile, 'utf8').trim().split('.')[1] as string, 'base64url').toString());
    assert.equal(claims.em, 'ca');
  });

  it("re-enrolls an edge router and writes its new enrollment JWT", async () => {
    const first = join(work, 'er-1.jwt');
    const second = join(work, 'er-1-again.jwt');
    await ok('edge', 'create', 'edge-router', 'er-1', '-o', first);
    const out = await ok('edge', 'do', 'edge-router', 're-enroll', 'er-1', '-o', second);
    assert.match(out, /^re-enroll edge-router er-1 \(\S+\): done\nenrollment JWT written to /);
    const jwt = readFileSync(second, 'utf8').trim();
    assert.equal(jwt.split('.').length, 3);
    assert.notEqual(jwt, readFileSync(first, 'utf8').trim());
    assert.equal(JSON.parse(await ok('edge', 'get', 'edge-router', 'er-1')).enrollmentJwt, jwt);
  });

  it('refuses an unknown relation or action with a suggestion, and a missing or unknown parent', async () => {
    const relation = await svc('edge', 'list', 'identity', 'servics', 'alice');
    assert.equal(relation.code, 2);
    assert.match(relation.stderr, /identities have no related list 'servics' \(did you mean services\?\); they have: .*service-policies, services/);
    const order = await svc('edge', 'list', 'identities', 'alice', 'services');
    assert.equal(order.code, 2);
    assert.match(order.stderr, /the relation comes before the identity: svc edge list identity services alice/);

    const action = await svc('edge', 'do', 'identity', 'disabel', 'alice');
    assert.equal(action.code, 2);
    assert.match(action.stderr, /unknown command 'disabel'\n\(Did you mean disable\?\)/);

    const noParent = await svc('edge', 'list', 'identity', 'services');
    assert.equal(noParent.code, 2);
    assert.match(noParent.stderr, /missing required argument 'identity'/);
    const unknownParent = await svc('edge', 'list', 'identity', 'services', 'nobody');
    assert.equal(unknownParent.code, 1);
    assert.match(unknownParent.stderr, /no identity has the id or name 'nobody'/);
    const unknownTarget = await svc('edge', 'do', 'identity', 'enable', 'nobody');
    assert.equal(unknownTarget.code, 1);
    assert.match(unknownTarget.stderr, /no identity has the id or name 'nobody'/);
  });

  it("lists in 'svc edge --help' every resource of the served Management API document, and no informational list", async () => {
    const token = await ctl.adminToken();
    const specs = (await ctl.fetch('/edge/management/v1/specs', { headers: { 'svc-session': token } })).json().data as { id: string }[];
    const id = specs.find((s) => s.id.includes('management'))?.id;
    assert.ok(id, 'the controller serves its Management API document');
    const document = (await ctl.fetch(`/edge/management/v1/specs/${id}/spec`, { headers: { 'svc-session': token } })).json().data;
    // A resource: a top-level path whose GET answers a list and needs a session (public lists describe the controller).
    const resources: string[] = [];
    const informational: string[] = [];
    for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      const get = operations.get;
      if (!/^\/[a-z][a-z0-9-]*$/.test(path) || get?.responses?.['200']?.content?.['application/json']?.schema?.properties?.data?.type !== 'array') continue;
      (Array.isArray(get.security) && get.security.length === 0 ? informational : resources).push(path.slice(1));
    }
    assert.ok(resources.length >= 20, `${resources.length} resources`);
    assert.ok(informational.includes('specs'));

    const help = await ok('edge', '--help');
    const section = help.slice(help.indexOf('Resources ('), help.indexOf('Related lists:'));
    const listed = section.split('\n').filter((line) => /^ {2}\S/.test(line)).map((line) => line.trim().split(/ +/)[0] as string);
    const plural = (singular: string) => resources.find((r) => r === singular || r === `${singular}s` || r === `${singular.slice(0, -1)}ies`);
    assert.deepEqual(listed.map(plural).sort(), [...resources].sort());
    assert.equal(listed.includes('spec'), false);
    assert.match(help, /list identity RELATION: .*\bservices\b/);
    assert.match(help, /do identity ACTION: disable enable delete-mfa/);
  });
});
