/**
 * Names where people read (issue 44 item 4): role columns show `@name` rather than ids, the edge-router table shows
 * whether a router is online and verified, an unknown entity name gets a did-you-mean, and a delete refused because
 * other entities use the one deleted names them (configs, config types, auth policies). Real `svc` processes
 * against a real controller on loopback over TLS.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliUser } from '../helpers/cli.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';

const INTERCEPT = '{"protocols":["tcp"],"addresses":["web.local"],"portRanges":[{"low":80,"high":80}]}';

describe(`svc edge tables and errors by name (${testDialect})`, () => {
  let ctl: TestController;
  let xdg: string;
  const { svc, ok } = cliUser(() => xdg);

  before(async () => {
    ctl = await startTestController();
    await ctl.adminToken();
    xdg = mkdtempSync(join(tmpdir(), 'svc-cli-names-'));
    await ok('edge', 'login', ctl.baseUrl, '--yes', '-u', 'admin', '-p', 'admin-password');
    await ok('edge', 'create', 'identity', 'host1', '--role-attributes', 'hosts');
    await ok('edge', 'create', 'service', 'web');
  });
  after(async () => {
    rmSync(xdg, { recursive: true, force: true });
    await ctl.close();
  });

  it('shows a policy role that names one identity as @name in the table, and keeps #attributes as they are', async () => {
    await ok('edge', 'create', 'service-policy', 'web-bind', 'Bind', '--semantic', 'AnyOf', '--identity-roles', '@host1,#hosts', '--service-roles', '@web');
    const table = (await ok('edge', 'list', 'service-policies')).split('\n');
    assert.match(table[1] as string, /^\S+ +web-bind +Bind +AnyOf +@host1,#hosts +@web$/);
    // JSON stays as the controller answers: the id, for scripts.
    const [policy] = JSON.parse(await ok('edge', 'list', 'service-policies', '--json'));
    assert.match(policy.identityRoles[0], /^@(?!host1)\S+$/);
  });

  it('shows a role whose entity was deleted as its id rather than failing the table', async () => {
    await ok('edge', 'create', 'identity', 'gone');
    await ok('edge', 'create', 'edge-router-policy', 'gone-er', '--semantic', 'AnyOf', '--identity-roles', '@gone', '--edge-router-roles', '#all');
    await ok('edge', 'delete', 'identity', 'gone');
    const row = (await ok('edge', 'list', 'edge-router-policies')).split('\n').find((line) => line.includes('gone-er')) as string;
    assert.match(row, /@(?!gone\b)\S+/);
  });

  it('shows isOnline and isVerified in the edge-router table', async () => {
    await ok('edge', 'create', 'edge-router', 'er-1', '-o', join(xdg, 'er-1.jwt'));
    const table = (await ok('edge', 'list', 'edge-routers')).split('\n');
    assert.match(table[0] as string, /^id +name +isOnline +isVerified +/);
    assert.match(table[1] as string, /^\S+ +er-1 +false +false +/);
  });

  it('suggests the closest name when a command names an entity that does not exist, and changes nothing', async () => {
    const result = await svc('edge', 'delete', 'identity', 'hots1');
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /no identity has the id or name 'hots1'; did you mean 'host1'\?/);
    assert.match(await ok('edge', 'get', 'identity', 'host1'), /host1/);
  });

  it('suggests nothing when no name is close', async () => {
    const result = await svc('edge', 'get', 'service', 'zzzzzzzz');
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /no service has the id or name 'zzzzzzzz'$/m);
  });
  it('refuses to delete a config a service uses, naming the service, and deletes it once the service lets go', async () => {
    await ok('edge', 'create', 'config-type', 'host-type');
    await ok('edge', 'create', 'config', 'web-host', '--config-type-id', 'host-type', '--config-data', '{"port": 80}');
    await ok('edge', 'create', 'service', 'web2', '--configs', 'web-host');
    const refused = await svc('edge', 'delete', 'config', 'web-host');
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /config 'web-host' is used by service 'web2'; remove it from the service first/);
    assert.match(await ok('edge', 'get', 'config', 'web-host'), /web-host/);
    await ok('edge', 'update', 'service', 'web2', '--configs', '');
    await ok('edge', 'delete', 'config', 'web-host');
  });
  it("shows a service's configs by name, and an enrollment's identityId as the identity's name", async () => {
    await ok('edge', 'create', 'config-type', 'intercept-type');
    await ok('edge', 'create', 'config', 'crm-intercept', '--config-type-id', 'intercept-type', '--config-data', '{"port": 443}');
    await ok('edge', 'create', 'service', 'crm', '--configs', 'crm-intercept');
    const services = await ok('edge', 'list', 'services', 'name = "crm"', '--columns', 'name,configs');
    assert.match(services, /^name +configs\ncrm +crm-intercept\n/);
    await ok('edge', 'create', 'identity', 'bob', '-o', join(xdg, 'bob.jwt'));
    const enrollments = await ok('edge', 'list', 'enrollments', '--columns', 'method,identityId');
    assert.match(enrollments, /^ott +bob$/m);
  });
  it('shows the audit log with the time and the name of the entity changed, even after the entity is deleted', async () => {
    const since = Date.now();
    await ok('edge', 'create', 'service', 'audited');
    await ok('edge', 'delete', 'service', 'audited');
    const table = (await ok('edge', 'list', 'audit-log', 'entityType = "service"', '--limit', '2')).split('\n');
    assert.match(table[0] as string, /^id +time +actorName +action +entityType +entityName$/);
    const rows = table.slice(1, 3).map((line) => line.split(/ +/));
    assert.deepEqual(rows.map((cells) => [cells[2], cells[3], cells[5]]), [['admin', 'delete', 'audited'], ['admin', 'create', 'audited']]);
    for (const cells of rows) assert.ok(Date.parse(cells[1] as string) >= since - 1000, `${cells[1]} is the time of the change`);
  });

  it('refuses to delete a config type a config uses, naming the config, and deletes it once unused', async () => {
    await ok('edge', 'create', 'config-type', 'team-type', '--schema', '{"type":"object"}');
    await ok('edge', 'create', 'config', 'team-cfg', 'team-type', '{"a":1}');
    const refused = await svc('edge', 'delete', 'config-type', 'team-type');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /409 CAN_NOT_DELETE_REFERENCED_ENTITY: The config type 'team-type' is used by config 'team-cfg'; delete that config first/);
    assert.equal(JSON.parse(await ok('edge', 'get', 'config-type', 'team-type', '-j')).name, 'team-type');
    await ok('edge', 'delete', 'config', 'team-cfg');
    await ok('edge', 'delete', 'config-type', 'team-type');
  });

  it('names the first five users with the total when many use it', async () => {
    await ok('edge', 'create', 'config', 'shared-cfg', 'intercept.v1', INTERCEPT);
    for (let i = 1; i <= 7; i++) await ok('edge', 'create', 'service', `svc-${i}`, '--configs', 'shared-cfg');
    const refused = await svc('edge', 'delete', 'config', 'shared-cfg');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /The config 'shared-cfg' is used by 7 services, among them 'svc-1', 'svc-2', 'svc-3', 'svc-4', 'svc-5'; remove it from those services first/);
    const two = await svc('edge', 'delete', 'service', 'svc-1');
    assert.equal(two.code, 0);
  });

  it('refuses to delete an auth policy identities use, naming them, and deletes it once unused', async () => {
    await ok('edge', 'create', 'auth-policy', 'strict', '--data', '{"primary":{"cert":{"allowed":true,"allowExpiredCerts":false},"updb":{"allowed":true,"minPasswordLength":5,"maxAttempts":0,"lockoutDurationMinutes":0,"requireMixedCase":false,"requireNumberChar":false,"requireSpecialChar":false},"extJwt":{"allowed":false,"allowedSigners":[]}},"secondary":{"requireTotp":false,"requireExtJwt":null}}');
    await ok('edge', 'create', 'identity', 'strict-bob', '--auth-policy-id', 'strict');
    const refused = await svc('edge', 'delete', 'auth-policy', 'strict');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /The auth policy 'strict' is used by identity 'strict-bob'; give those identities another auth policy first/);
    await ok('edge', 'delete', 'identity', 'strict-bob');
    await ok('edge', 'delete', 'auth-policy', 'strict');
  });
});
