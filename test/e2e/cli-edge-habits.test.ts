/**
 * Upstream's `ziti edge` habits typed at `svc edge` (decision 0073): type-first positionals, `-a` and `-j`, enum
 * values in lower case, `create config NAME TYPE JSON`, short resource names, `--data` inline or from a file or
 * stdin, and for what svc spells otherwise a refusal saying what to type. Real `svc edge` commands against a real
 * controller on loopback over TLS.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliUser } from '../helpers/cli.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';

describe(`svc edge with upstream's ziti CLI habits (${testDialect})`, () => {
  let ctl: TestController;
  let xdg: string;
  let work: string;
  const { svc, ok } = cliUser(() => xdg);
  const json = async (...args: string[]) => JSON.parse(await ok(...args));
  /** Each command line must exit 2 (usage) with a message matching its pattern. */
  const expectUsageErrors = async (cases: { args: string[]; message: RegExp }[]) => {
    for (const { args, message } of cases) {
      const result = await svc(...args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, args.join(' '));
    }
  };
  const names = async (resource: string) => (await json('edge', 'list', resource, '--all', '-j')).map((e: { name: string }) => e.name).sort();

  before(async () => {
    ctl = await startTestController();
    await ctl.adminToken();
    xdg = mkdtempSync(join(tmpdir(), 'svc-cli-habits-'));
    work = mkdtempSync(join(tmpdir(), 'svc-cli-habits-work-'));
    await ok('edge', 'login', ctl.baseUrl, '--yes', '-u', 'admin', '-p', 'admin-password');
  });
  after(async () => {
    rmSync(xdg, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
    await ctl.close();
  });

  it('creates identities type first or name first, with the type in any case and -a comma-separated or repeated', async () => {
    await ok('edge', 'create', 'identity', 'user', 'bob', '-a', 'sales,eu', '-a', 'vip');
    await ok('edge', 'create', 'identity', 'device', 'laptop-1');
    await ok('edge', 'create', 'identity', 'carol', 'service');
    await ok('edge', 'create', 'identity', 'dave', 'User');
    await ok('edge', 'create', 'identity', 'erin');
    const bob = await json('edge', 'get', 'identity', 'bob');
    assert.equal(bob.typeId, 'User');
    assert.deepEqual([...bob.roleAttributes].sort(), ['eu', 'sales', 'vip']);
    assert.equal((await json('edge', 'get', 'identity', 'laptop-1')).typeId, 'Device');
    assert.equal((await json('edge', 'get', 'identity', 'carol')).typeId, 'Service');
    assert.equal((await json('edge', 'get', 'identity', 'dave')).typeId, 'User');
    assert.equal((await json('edge', 'get', 'identity', 'erin')).typeId, 'Default');
    // Upstream's -A (admin) and its long name for -o.
    await ok('edge', 'create', 'identity', 'user', 'root-2', '-A', '--jwt-output-file', join(work, 'root-2.jwt'));
    assert.equal((await json('edge', 'get', 'identity', 'root-2')).isAdmin, true);
  });

  it("creates policies with lower-case enum values and upstream's short resource names", async () => {
    await ok('edge', 'create', 'sp', 'bob-dials-web', 'dial', '--semantic', 'anyof', '--identity-roles', '@bob', '--service-roles', '#web');
    await ok('edge', 'create', 'service-policy', 'bind', 'bob-binds-web', '--semantic', 'all', '--identity-roles', '@bob', '--service-roles', '#web');
    await ok('edge', 'create', 'erp', 'all-routers', '--semantic', 'any', '--identity-roles', '#all', '--edge-router-roles', '#all');
    await ok('edge', 'create', 'serp', 'web-routers', '--semantic', 'ALLOF', '--service-roles', '#web', '--edge-router-roles', '#all');
    const dial = await json('edge', 'get', 'sp', 'bob-dials-web');
    assert.deepEqual([dial.type, dial.semantic], ['Dial', 'AnyOf']);
    const bind = await json('edge', 'get', 'service-policy', 'bob-binds-web');
    assert.deepEqual([bind.type, bind.semantic], ['Bind', 'AllOf']);
    assert.equal((await json('edge', 'get', 'erp', 'all-routers')).semantic, 'AnyOf');
    assert.equal((await json('edge', 'get', 'serps', 'web-routers')).semantic, 'AllOf');
    // `ls`, a filter positional and -j, as upstream's `ziti edge ls sps 'type = "Dial"' -j`.
    const dials = await json('edge', 'ls', 'sps', 'type = "Dial"', '-j');
    assert.deepEqual(dials.map((p: { name: string }) => p.name), ['bob-dials-web']);
    // An edge router with upstream's -t (tunneler enabled), by its short name.
    await ok('edge', 'create', 'er', 'er-tunneler', '-t', '-a', 'public');
    const router = await json('edge', 'get', 'ers', 'er-tunneler');
    assert.deepEqual([router.isTunnelerEnabled, router.roleAttributes], [true, ['public']]);
    // A posture check type first, as upstream's `create posture-check mac NAME -m …`.
    await ok('edge', 'create', 'posture-check', 'mac', 'office-macs', '-m', 'aa:bb:cc:dd:ee:ff');
    const check = await json('edge', 'get', 'posture-check', 'office-macs');
    assert.equal(check.typeId, 'MAC');
  });

  it("creates a config from upstream's NAME TYPE JSON positionals, the type by name or id, and updates its data with -d", async () => {
    const type = await json('edge', 'create', 'config-type', 'web-type', '-j');
    await ok('edge', 'create', 'config', 'web-cfg', 'web-type', '{"port": 80}');
    await ok('edge', 'create', 'config', 'web-cfg-2', type.id, '{"port": 8080}');
    const byName = await json('edge', 'get', 'config', 'web-cfg');
    assert.deepEqual([byName.configTypeId, byName.data], [type.id, { port: 80 }]);
    assert.deepEqual((await json('edge', 'get', 'config', 'web-cfg-2')).data, { port: 8080 });
    const updated = await json('edge', 'update', 'config', 'web-cfg', '-d', '{"port": 81}', '-j');
    assert.deepEqual(updated.data, { port: 81 });
    // `show` is upstream's verb for printing a config.
    assert.deepEqual((await json('edge', 'show', 'config', 'web-cfg')).data, { port: 81 });
  });

  it('prints JSON with -j on list, create, get, update, delete, whoami and policy-advice', async () => {
    const created = await json('edge', 'create', 'service', 'web', '-a', 'web', '-c', 'web-cfg', '-j');
    assert.equal(created.name, 'web');
    assert.deepEqual(created.configs, [(await json('edge', 'get', 'config', 'web-cfg')).id]);
    assert.deepEqual(created.roleAttributes, ['web']);
    assert.equal((await json('edge', 'get', 'service', 'web', '-j')).id, created.id);
    assert.deepEqual((await json('edge', 'update', 'service', 'web', '-a', 'web,intranet', '-j')).roleAttributes.sort(), ['intranet', 'web']);
    assert.equal((await json('edge', 'list', 'services', 'name = "web"', '-j'))[0].id, created.id);
    assert.equal((await json('edge', 'whoami', '-j')).name, 'admin');
    assert.equal((await json('edge', 'policy-advice', 'bob', 'web', '-j')).isDialAllowed, true);
    const scratch = await json('edge', 'create', 'service', 'scratch', '-j');
    assert.deepEqual(await json('edge', 'delete', 'service', 'scratch', '-j'), [{ id: scratch.id, ref: 'scratch' }]);
  });

  it('reads --data inline, from @FILE, from a bare FILE and from stdin (-)', async () => {
    const file = join(work, 'files.json');
    writeFileSync(file, JSON.stringify({ name: 'from-at-file' }));
    const bare = join(work, 'bare.json');
    writeFileSync(bare, JSON.stringify({ name: 'from-bare-file' }));
    await ok('edge', 'create', 'service', '--data', '{"name": "from-inline", "roleAttributes": ["x"]}');
    await ok('edge', 'create', 'service', '--data', `@${file}`);
    await ok('edge', 'create', 'service', '--data', bare);
    const piped = await runCliInProcess(['edge', 'create', 'service', '--data', '-'], { XDG_CONFIG_HOME: xdg, SVC_ADMIN_PASSWORD: '' }, { stdin: '{"name": "from-stdin"}' });
    assert.equal(piped.code, 0, piped.stderr);
    // @FILE in an object option too: a config's data kept in a file.
    const settings = join(work, 'settings.json');
    writeFileSync(settings, '{\n  "port": 443\n}\n');
    await ok('edge', 'create', 'config', 'tls-cfg', 'web-type', `@${settings}`);
    assert.deepEqual((await json('edge', 'get', 'config', 'tls-cfg')).data, { port: 443 });
    const services = await names('services');
    for (const name of ['from-at-file', 'from-bare-file', 'from-inline', 'from-stdin']) assert.ok(services.includes(name), name);
  });

  it('refuses bad values naming the option or argument and the value, exits 2 and creates nothing; the same calls then work', async () => {
    const broken = join(work, 'broken.json');
    writeFileSync(broken, '{\n  "name": "bad-svc",\n  "roleAttributes": [1,]\n}\n');
    const cases: { args: string[]; message: RegExp }[] = [
      { args: ['edge', 'create', 'identity', 'bad-id', 'robot'], message: /svc: create identity: TYPE 'robot' is invalid: expected one of User, Device, Service, Router, Default/ },
      { args: ['edge', 'create', 'sp', 'bad-sp', 'dial', '--semantic', 'most'], message: /option '--semantic <AllOf\|AnyOf>' argument 'most' is invalid\. expected one of AllOf, AnyOf/ },
      { args: ['edge', 'create', 'sp', 'bad-sp', 'call'], message: /svc: create service-policy: TYPE 'call' is invalid: expected one of Dial, Bind/ },
      { args: ['edge', 'create', 'config', 'bad-cfg', 'web-type', '{"port": 80,}'], message: /svc: create config: JSON '\{"port": 80,\}' is invalid: .*line 1, column 13: unexpected '\}'/ },
      { args: ['edge', 'create', 'service', '--data', `@${broken}`], message: /svc: --data: file '.*broken\.json' is not valid JSON at line 3, column 24: unexpected '\]'/ },
      { args: ['edge', 'create', 'service', 'bad-svc', '--tags', '{"site": s1}'], message: /option '-t, --tags <JSON\|@file\|k=v,…>' argument '\{"site": s1\}' is invalid\. .*line 1, column 10/ },
      { args: ['edge', 'create', 'service', 'bad-svc', '--data', 'no-such-file.json'], message: /svc: --data: 'no-such-file\.json' is neither JSON nor a readable file: cannot read 'no-such-file\.json' \(no such file\); --data takes the whole body as JSON/ },
      { args: ['edge', 'create', 'config', 'bad-cfg', 'web-type', '--data', 'port=80'], message: /svc: --data: 'port=80' is neither JSON nor a readable file: .*; did you mean --config-data \(the config's own data\)\?/ },
      { args: ['edge', 'create', 'config', 'bad-cfg', 'web-type', '--data', '{"port": 80}'], message: /svc: --data: configs have no field 'port' .*; did you mean --config-data \(the config's own data\)\?/ },
      { args: ['edge', 'create', 'service', 'bad-svc', '--tags', '@no-such-tags.json'], message: /argument '@no-such-tags\.json' is invalid\. .*cannot read 'no-such-tags\.json' \(no such file\)/ },
    ];
    await expectUsageErrors(cases);
    assert.deepEqual((await names('identities')).filter((n: string) => n.startsWith('bad-')), []);
    assert.deepEqual((await names('service-policies')).filter((n: string) => n.startsWith('bad-')), []);
    assert.deepEqual((await names('configs')).filter((n: string) => n.startsWith('bad-')), []);
    assert.deepEqual((await names('services')).filter((n: string) => n.startsWith('bad-')), []);

    // The positive controls: the same calls with values that mean something.
    await ok('edge', 'create', 'identity', 'bad-id', 'router');
    await ok('edge', 'create', 'sp', 'bad-sp', 'dial', '--semantic', 'allof');
    await ok('edge', 'create', 'config', 'bad-cfg', 'web-type', '{"port": 80}');
    await ok('edge', 'create', 'service', 'bad-svc', '--tags', '{"site": "s1"}');
    assert.equal((await json('edge', 'get', 'identity', 'bad-id')).typeId, 'Router');
  });

  it('answers an unknown short option with the options it likely meant, and upstream-only options with what to type', async () => {
    const cases: { args: string[]; message: RegExp }[] = [
      { args: ['edge', 'create', 'service', 'opt-svc', '-r', 'web'], message: /error: unknown option '-r'\n\(Did you mean -a, --role-attributes\?\)/ },
      { args: ['edge', 'create', 'identity', 'opt-id', '-role', 'web'], message: /error: unknown option '-role'\n\(Did you mean -a, --role-attributes\?\)/ },
      { args: ['edge', 'create', 'sp', 'opt-sp', 'dial', '-s', 'AnyOf'], message: /\(Did you mean --semantic or --service-roles\?\)/ },
      { args: ['edge', 'create', 'service', 'opt-svc', '-q'], message: /error: unknown option '-q'\n\(This command's short options: -n, -c, -a, -t, -j, -h; see --help for the long ones\)/ },
      { args: ['edge', 'list', 'identities', '--csv'], message: /error: unknown option '--csv': svc edge list prints a table, or JSON with -j; it has no CSV output/ },
      { args: ['edge', 'create', 'service', 'opt-svc', '-e', 'ON'], message: /error: unknown option '-e': end-to-end encryption is --encryption-required true\|false/ },
      { args: ['edge', 'create', 'config', 'opt-cfg', 'web-type', '-f', 'x.json'], message: /error: unknown option '-f': give JSON from a file with @FILE/ },
      { args: ['edge', 'delete', 'services', 'where', 'name contains "opt"'], message: /svc: delete service takes ids or names, not 'where FILTER': list them with svc edge list services 'name contains "opt"'/ },
      // A long option keeps commander's own did-you-mean.
      { args: ['edge', 'create', 'service', 'opt-svc', '--role-atributes', 'x'], message: /\(Did you mean --role-attributes\?\)/ },
    ];
    await expectUsageErrors(cases);
    assert.deepEqual((await names('services')).filter((n: string) => n.startsWith('opt-')), []);
    assert.deepEqual((await names('configs')).filter((n: string) => n.startsWith('opt-')), []);
    await ok('edge', 'create', 'service', 'opt-svc', '-a', 'web');
    await ok('edge', 'delete', 'services', 'opt-svc');
  });
});
