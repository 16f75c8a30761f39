/**
 * A delete refused because other entities use the one being deleted names those users (the first five by name, with
 * the total) and says what to do first, for configs, config types and auth policies; nothing is deleted, and once the
 * users are gone the same delete works. Real `svc edge` commands (in process) against a real controller over TLS.
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

describe(`svc edge delete names what still uses an entity (${testDialect})`, () => {
  let ctl: TestController;
  let xdg: string;
  const { svc, ok } = cliUser(() => xdg);

  before(async () => {
    ctl = await startTestController();
    await ctl.adminToken();
    xdg = mkdtempSync(join(tmpdir(), 'svc-cli-delete-refusals-'));
    await ok('edge', 'login', ctl.baseUrl, '--yes', '-u', 'admin', '-p', 'admin-password');
  });
  after(async () => {
    rmSync(xdg, { recursive: true, force: true });
    await ctl.close();
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
    await ok('edge', 'create', 'identity', 'bob', '--auth-policy-id', 'strict');
    const refused = await svc('edge', 'delete', 'auth-policy', 'strict');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /The auth policy 'strict' is used by identity 'bob'; give those identities another auth policy first/);
    await ok('edge', 'delete', 'identity', 'bob');
    await ok('edge', 'delete', 'auth-policy', 'strict');
  });
});
