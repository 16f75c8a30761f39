/**
 * `svc edge` for the APIs the console added in issue 45, and for the authenticator re-enroll: `reach` (each layer
 * between an identity and a service), `preview` (who gains and loses access before a policy or role attribute change),
 * `list expiries --within`, `watch status` (router events as they happen) and `do authenticator re-enroll`; each with
 * a bad argument, its exit code and its sentence. The CLI runs in the test process (as cli-edge-more does) against a
 * controller listening over TLS on loopback.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCliInProcess, type CliResult } from '../helpers/cli-in-process.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { managementClient, type ManagementClient } from '../helpers/management.js';
import { routerHello } from '../helpers/router-hello.js';

describe(`svc edge reach, preview, list expiries, watch status and re-enroll (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let xdg: string;
  before(async () => {
    ctl = await startTestController();
    admin = managementClient(ctl, await ctl.adminToken());
    xdg = mkdtempSync(join(tmpdir(), 'svc-cli-console-apis-'));
    await ok('edge', 'login', ctl.baseUrl, '--yes', '-p', 'admin-password');
    await ok('edge', 'create', 'identity', 'reach-user', 'User', '--role-attributes', 'laptops');
    await ok('edge', 'create', 'service', 'reach-web');
  });
  after(async () => {
    await ctl.close();
    rmSync(xdg, { recursive: true, force: true });
  });

  const svc = (...args: string[]) => runCliInProcess(args, { XDG_CONFIG_HOME: xdg, SVC_ADMIN_PASSWORD: '', SVC_ADMIN_USER: '' });
  async function ok(...args: string[]): Promise<string> {
    const result = await svc(...args);
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  }
  /** Asserts the exit code and the sentence on stderr. */
  const fails = (result: CliResult, code: 1 | 2, sentence: RegExp) => {
    assert.equal(result.code, code, result.stderr);
    assert.match(result.stderr, sentence);
  };

  it('prints each layer between an identity and a service, pass or blocked, with what to fix, named by names', async () => {
    const blocked = await ok('edge', 'reach', 'reach-user', 'reach-web');
    assert.match(blocked, /^identity reach-user -> service reach-web \(dial\): blocked$/m);
    assert.match(blocked, /^ {2}pass +identity +\S/m);
    assert.match(blocked, /^ {2}BLOCKED +service-policy +\S.*\n +fix: service-policies/m);

    await ok('edge', 'create', 'service-policy', 'laptops-dial-web', 'Dial', '--identity-roles', '#laptops', '--service-roles', '@reach-web');
    const after = await ok('edge', 'reach', 'reach-user', 'reach-web');
    assert.match(after, /^ {2}pass +service-policy /m);
    const json = JSON.parse(await ok('edge', 'reach', 'reach-user', 'reach-web', '--permission', 'bind', '-j'));
    assert.equal(json.permission, 'bind');
    assert.equal(json.layers.find((l: { layer: string }) => l.layer === 'service-policy').ok, false, 'the dial policy gives no bind');
  });

  it('refuses reach for an unknown identity (exit 1) and a permission that is neither dial nor bind (exit 2)', async () => {
    fails(await svc('edge', 'reach', 'nobody-at-all', 'reach-web'), 1, /no identity has the id or name 'nobody-at-all'/);
    fails(await svc('edge', 'reach', 'reach-user', 'reach-web', '--permission', 'fly'), 2, /--permission: 'fly' is neither dial nor bind/);
  });

  it('previews the gains of a new service policy and of new role attributes, and the losses of a delete, saving nothing', async () => {
    await ok('edge', 'create', 'identity', 'preview-user', 'User');
    await ok('edge', 'create', 'service', 'preview-db');
    const created = await ok('edge', 'preview', 'service-policy', '--type', 'Bind', '--identity-roles', '@preview-user', '--service-roles', '@preview-db');
    assert.match(created, /^gains: 1\n {2}identity preview-user -> service preview-db \(bind\)\nlosses: none$/m);

    await ok('edge', 'create', 'service-policy', 'dbas-dial-db', 'Dial', '--identity-roles', '#dbas', '--service-roles', '@preview-db');
    const attributes = await ok('edge', 'preview', 'identity', 'preview-user', '--role-attributes', 'dbas');
    assert.match(attributes, /^gains: 1\n {2}identity preview-user -> service preview-db \(dial\)$/m);
    await ok('edge', 'update', 'identity', 'preview-user', '--role-attributes', 'dbas');
    const removed = JSON.parse(await ok('edge', 'preview', 'service-policy', 'dbas-dial-db', '--delete', '-j'));
    assert.deepEqual(removed.losses.items.map((i: { identity: { name: string } }) => i.identity.name), ['preview-user']);
    assert.equal((await admin.get(`/service-policies?filter=${encodeURIComponent('name = "dbas-dial-db"')}`)).json().data.length, 1, 'nothing was deleted');
  });

  it('refuses a preview without a change (exit 2) and a role the controller refuses (exit 1, naming the field)', async () => {
    fails(await svc('edge', 'preview', 'service-policy', 'laptops-dial-web'), 2, /give the change .* or --delete/);
    fails(await svc('edge', 'preview', 'service-policy', '--type', 'Dial', '--identity-roles', '#all,#laptops'), 1, /change\.identityRoles/);
  });

  it('lists what expires within a window as a table with the end of each, and as JSON', async () => {
    await ok('edge', 'create', 'identity', 'expiring-device', 'Device', '-o', join(xdg, 'expiring.jwt'));
    const table = (await ok('edge', 'list', 'expiries', '--within', 'P30D')).split('\n');
    assert.match(table[0] ?? '', /^id +name +kind +.*expiresAt$/);
    assert.ok(table.some((line) => /expiring-device +enrollment .*\d{4}-\d\d-\d\dT/.test(line)), table.join('\n'));
    const json = JSON.parse(await ok('edge', 'list', 'expiries', '--within', 'P30D', '-j'));
    assert.ok(json.some((item: { kind: string; entity: { name: string } }) => item.kind === 'enrollment' && item.entity.name === 'expiring-device'));
    const soon = JSON.parse(await ok('edge', 'list', 'expiries', '--within', 'PT1H', '-j'));
    assert.ok(!soon.some((item: { entity: { name: string } }) => item.entity.name === 'expiring-device'), 'an enrollment ending later is not within an hour');
  });

  it('refuses an expiry window that is not an ISO 8601 duration, naming within (exit 1)', async () => {
    fails(await svc('edge', 'list', 'expiries', '--within', 'thirty days'), 1, /within/);
  });

  it('prints one line per router going online or offline until --count events', async () => {
    const routerId = (await admin.post('/edge-routers', { name: 'er-watched' })).json().data.id as string;
    let finished = false;
    const watching = svc('edge', 'watch', 'status', '--count', '2').finally(() => (finished = true));
    // The stream subscribes some time after the command starts: the router comes and goes until two events are seen.
    for (let online = true; !finished; online = !online) {
      if (online) await ctl.running.routerPresence.connected(routerId, routerHello('er-watched.example', ['tls:er-watched.example:3022']));
      else await ctl.running.routerPresence.disconnected(routerId);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const result = await watching;
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trim().split('\n');
    assert.equal(lines.length, 2);
    for (const line of lines) assert.match(line, /^\S+Z {2}router er-watched (online \(v[0-9.]+\)|offline)$/);
    assert.notEqual(lines[0]?.split(' ').at(-1), lines[1]?.split(' ').at(-1), 'online and offline alternate');
  });

  it('prints an identity going online at its login and offline at its logout', async () => {
    await createIdentity(ctl.running.database, { name: 'cli-watched', username: 'cli-watched', password: 'Cli-Password-2' });
    let finished = false;
    const watching = svc('edge', 'watch', 'status', '--count', '2').finally(() => (finished = true));
    // As for routers: the identity logs in and out until the stream, subscribed some time after the start, saw both.
    while (!finished) {
      const login = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'cli-watched', password: 'Cli-Password-2' } });
      assert.equal(login.status, 200, login.text);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const logout = await ctl.fetch('/edge/client/v1/current-api-session', { method: 'DELETE', headers: { 'svc-session': login.json().data.token } });
      assert.equal(logout.status, 200, logout.text);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const result = await watching;
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trim().split('\n');
    assert.equal(lines.length, 2);
    for (const line of lines) assert.match(line, /^\S+Z {2}identity cli-watched (online \(API session\)|offline)$/);
    assert.notEqual(lines[0]?.split(' ').at(-1), lines[1]?.split(' ').at(-1), 'online and offline alternate');
  });

  it('refuses a --count that is not a whole number (exit 2)', async () => {
    fails(await svc('edge', 'watch', 'status', '--count', 'many'), 2, /expected a whole number \(--count\)/);
  });

  it('re-enrolls a password authenticator with one command, and refuses a missing or past expiry', async () => {
    const holder = await createIdentity(ctl.running.database, { name: 'cli-forgetful', username: 'cli-forgetful', password: 'Cli-Password-1' });
    const [updb] = (await admin.get(`/identities/${holder.id}/authenticators`)).json().data as Array<{ id: string }>;
    fails(await svc('edge', 'do', 'authenticator', 're-enroll', updb!.id), 2, /missing --expires-at/);
    fails(await svc('edge', 'do', 'authenticator', 're-enroll', updb!.id, '--expires-at', new Date(Date.now() - 60_000).toISOString()), 1, /expiresAt must be in the future/);
    const answer = JSON.parse(await ok('edge', 'do', 'authenticator', 're-enroll', updb!.id, '--expires-at', new Date(Date.now() + 86_400_000).toISOString()));
    const enrollment = (await admin.get(`/enrollments/${answer.id}`)).json().data;
    assert.deepEqual([enrollment.method, enrollment.identityId, enrollment.username], ['updb', holder.id, 'cli-forgetful']);
    assert.deepEqual((await admin.get(`/identities/${holder.id}/authenticators`)).json().data, []);
  });
});
