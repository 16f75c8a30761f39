/**
 * `svc quickstart` and `svc controller check|run` as a user runs them: real processes, real files, real TLS (the commands
 * that end on their own, refusals and checks, run in process: cli-in-process.ts).
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadControllerConfig } from '../../src/config/load.js';
import { spawnCli, stopLeftRunning } from '../helpers/cli.js';
import { runCliInProcess as runCli } from '../helpers/cli-in-process.js';
import { request } from '../helpers/https.js';
import { freePort } from '../helpers/ports.js';

const temp = mkdtempSync(join(tmpdir(), 'svc-cli-'));
after(async () => {
  await stopLeftRunning();
  rmSync(temp, { recursive: true, force: true });
});

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('svc quickstart', () => {
  const home = join(temp, 'home');
  let port: number;
  let ctrlPort: number;

  it('creates a home with PKI, config, database and admin, runs an edge router beside the controller, and serves the API until SIGTERM', async () => {
    port = await freePort();
    ctrlPort = await freePort();
    const healthPort = await freePort();
    const edgePort = await freePort();
    const cli = spawnCli(['quickstart', '--home', home, '--port', String(port), '--ctrl-port', String(ctrlPort), '--router-health-port', String(healthPort), '--router-edge-port', String(edgePort), '--admin-user', 'operator', '--admin-password', 'first-password']);
    await cli.waitForOutput('Press Ctrl+C');
    assert.match(cli.stdout(), new RegExp(`API: +https://127\\.0\\.0\\.1:${port}/edge/client/v1`));
    assert.match(cli.stdout(), new RegExp(`routers: +connect to tls:127\\.0\\.0\\.1:${ctrlPort}\n`));
    assert.match(readFileSync(join(home, 'config.yml'), 'utf8'), new RegExp(`^ctrl:\n  listener: tls:127\\.0\\.0\\.1:${ctrlPort}$`, 'm'));
    assert.match(cli.stdout(), /admin user: operator/);
    assert.doesNotMatch(cli.stdout(), /first-password/, 'a password given by the user is not echoed');
    assert.match(cli.stdout(), new RegExp(`CA bundle: +${join(home, 'pki', 'ca-bundle.pem')}`));
    for (const key of ['root.key.pem', 'intermediate.key.pem', 'server.key.pem', 'client.key.pem']) {
      assert.equal(statSync(join(home, 'pki', key)).mode & 0o777, 0o600, key);
    }
    const ca = readFileSync(join(home, 'pki', 'ca-bundle.pem'), 'utf8');
    const version = await request(`https://127.0.0.1:${port}/edge/client/v1/version`, { ca });
    assert.equal(version.status, 200);
    const login = await request(`https://127.0.0.1:${port}/edge/client/v1/authenticate?method=password`, {
      ca,
      method: 'POST',
      body: { username: 'operator', password: 'first-password' },
    });
    assert.equal(login.status, 200);
    // The router quickstart created, enrolled and started shows online within seconds.
    assert.match(cli.stdout(), new RegExp(`router: +quickstart-router \\(${join(home, 'router', 'router.yml').replaceAll('/', '\\/')}\\), edge tls:127\\.0\\.0\\.1:${edgePort}, health https://127\\.0\\.0\\.1:${healthPort}/health-checks`));
    const token = login.json().data.token as string;
    const routers = async () => (await request(`https://127.0.0.1:${port}/edge/management/v1/edge-routers?filter=${encodeURIComponent('name = "quickstart-router"')}`, { ca, headers: { 'svc-session': token } })).json().data;
    let seen: { isOnline: boolean; supportedProtocols: Record<string, string> }[] = [];
    for (const until = Date.now() + 15_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
      seen = await routers();
      if (seen[0]?.isOnline) break;
    }
    assert.equal(seen[0]?.isOnline, true, 'the quickstart router is online');
    assert.deepEqual(seen[0]?.supportedProtocols, { tls: `tls://127.0.0.1:${edgePort}` });
    const health = await request(`https://127.0.0.1:${healthPort}/health-checks`, { ca });
    assert.equal(health.status, 200);
    assert.equal(health.json().data.checks[0].id, 'controllerPing');
    assert.equal(await cli.stop('SIGTERM'), 0);
    assert.match(cli.stdout(), /stopped/);
  });

  it('reuses an existing home unchanged on later runs and stops cleanly on SIGINT', async () => {
    const before = sha(join(home, 'config.yml'));
    const cli = spawnCli(['quickstart', '--home', home, '--port', String(port), '--ctrl-port', String(await freePort()), '--no-router', '--admin-password', 'other-password']);
    await cli.waitForOutput('Press Ctrl+C');
    assert.match(cli.stdout(), /reusing/);
    assert.equal(sha(join(home, 'config.yml')), before);
    const ca = readFileSync(join(home, 'pki', 'ca-bundle.pem'), 'utf8');
    const login = await request(`https://127.0.0.1:${port}/edge/client/v1/authenticate?method=password`, {
      ca,
      method: 'POST',
      body: { username: 'operator', password: 'first-password' },
    });
    assert.equal(login.status, 200, 'the first password still works');
    assert.equal(await cli.stop('SIGINT'), 0);
  });

  it('prints a generated admin password once, on the first run only', async () => {
    const fresh = join(temp, 'generated');
    const p = await freePort();
    const first = spawnCli(['quickstart', '--home', fresh, '--port', String(p), '--ctrl-port', String(await freePort()), '--no-router'], { SVC_ADMIN_PASSWORD: '' });
    await first.waitForOutput('Press Ctrl+C');
    const password = /admin password \(shown once, keep it\): (\S+)/.exec(first.stdout())?.[1];
    assert.ok(password && password.length >= 20);
    await first.stop();
    const second = spawnCli(['quickstart', '--home', fresh, '--port', String(p), '--ctrl-port', String(await freePort()), '--no-router']);
    await second.waitForOutput('Press Ctrl+C');
    assert.doesNotMatch(second.stdout(), /admin password/);
    await second.stop();
  });

  it('takes the admin password from SVC_ADMIN_PASSWORD', async () => {
    const envHome = join(temp, 'from-env');
    const p = await freePort();
    const cli = spawnCli(['quickstart', '--home', envHome, '--port', String(p), '--ctrl-port', String(await freePort()), '--no-router'], { SVC_ADMIN_PASSWORD: 'env-password' });
    await cli.waitForOutput('Press Ctrl+C');
    const ca = readFileSync(join(envHome, 'pki', 'ca-bundle.pem'), 'utf8');
    const login = await request(`https://127.0.0.1:${p}/edge/client/v1/authenticate?method=password`, { ca, method: 'POST', body: { username: 'admin', password: 'env-password' } });
    assert.equal(login.status, 200);
    await cli.stop();
  });

  it('refuses bad arguments with exit 2 and a message naming the argument, creating nothing', async () => {
    const nothing = join(temp, 'nothing');
    const badPort = await runCli(['quickstart', '--home', nothing, '--port', '70000']);
    assert.equal(badPort.code, 2);
    assert.match(badPort.stderr, /--port: expected an integer from 1 to 65535, got '70000'/);
    const shortPassword = await runCli(['quickstart', '--home', nothing, '--admin-password', 'abc']);
    assert.equal(shortPassword.code, 2);
    assert.match(shortPassword.stderr, /password must be 5 to 100 characters/);
    const badCtrlPort = await runCli(['quickstart', '--home', nothing, '--ctrl-port', 'six']);
    assert.equal(badCtrlPort.code, 2);
    assert.match(badCtrlPort.stderr, /--ctrl-port: expected an integer from 1 to 65535, got 'six'/);
    const samePorts = await runCli(['quickstart', '--home', nothing, '--port', '7000', '--ctrl-port', '7000']);
    assert.equal(samePorts.code, 2);
    assert.match(samePorts.stderr, /--ctrl-port: routers need a port of their own; 7000 is the API's --port/);
    const unknown = await runCli(['quickstart', '--colour', 'blue']);
    assert.equal(unknown.code, 2);
    assert.throws(() => statSync(nothing));
  });
});

describe('svc controller', () => {
  it("lets routers name local addresses only in the quickstart's config, and says so in it", async () => {
    const home = join(temp, 'home');
    const quick = await loadControllerConfig(join(home, 'config.yml'), { env: {} });
    assert.equal(quick.config?.edge?.enrollment.allowRouterLocalNames, true, JSON.stringify(quick.diagnostics));
    assert.match(readFileSync(join(home, 'config.yml'), 'utf8'), /^# edge\.enrollment\.edgeRouter\.allowLocalNames is true here only/m);
    const withoutIt = join(home, 'without-local-names.yml');
    writeFileSync(withoutIt, readFileSync(join(home, 'config.yml'), 'utf8').replace(/\n\s*allowLocalNames: true/, ''));
    const strict = await loadControllerConfig(withoutIt, { env: {} });
    assert.equal(strict.config?.edge?.enrollment.allowRouterLocalNames, false, JSON.stringify(strict.diagnostics));
  });

  it('check exits 0 for a valid file and 1 with FILE:LINE:COLUMN diagnostics for a bad one, naming the web port a ctrl listener takes', async () => {
    const home = join(temp, 'home');
    const ok = await runCli(['controller', 'check', join(home, 'config.yml')]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /configuration is valid/);

    const bad = join(home, 'bad.yml');
    const text = readFileSync(join(home, 'config.yml'), 'utf8').replace('sessionTimeout: 30m', 'sessionTimeout: soon\n    sesionTimeout: 5m');
    writeFileSync(bad, text);
    const res = await runCli(['controller', 'check', bad]);
    assert.equal(res.code, 1);
    const lines = res.stderr.trim().split('\n');
    assert.ok(lines.some((l) => new RegExp(`^${bad}:\\d+:\\d+: edge\\.api\\.sessionTimeout: `).test(l)), res.stderr);
    assert.ok(lines.some((l) => /edge\.api\.sesionTimeout: .*did you mean 'sessionTimeout'/.test(l)), res.stderr);

    const clash = join(home, 'clash.yml');
    const apiPort = /interface: 127\.0\.0\.1:(\d+)/.exec(readFileSync(join(home, 'config.yml'), 'utf8'))![1];
    writeFileSync(clash, readFileSync(join(home, 'config.yml'), 'utf8').replace(/listener: tls:127\.0\.0\.1:\d+/, `listener: tls:0.0.0.0:${apiPort}`));
    const clashed = await runCli(['controller', 'check', clash]);
    assert.equal(clashed.code, 1);
    const listenerLine = readFileSync(clash, 'utf8').split('\n').findIndex((l) => l.includes('listener:')) + 1;
    assert.match(
      clashed.stderr,
      new RegExp(`^${clash}:${listenerLine}:13: ctrl\\.listener: 'tls:0\\.0\\.0\\.0:${apiPort}' uses port ${apiPort} of web\\[0\\]\\.bindPoints\\[0\\]\\.interface`, 'm'),
    );
  });

  it('run serves the API from a config file and stops on SIGTERM', async () => {
    const home = join(temp, 'home');
    const cli = spawnCli(['controller', 'run', '--config', join(home, 'config.yml')]);
    await cli.waitForOutput('listening on');
    const ca = readFileSync(join(home, 'pki', 'ca-bundle.pem'), 'utf8');
    const url = /listening on (\S+)/.exec(cli.stdout())![1];
    assert.equal((await request(`${url}/edge/client/v1/version`, { ca })).status, 200);
    assert.equal(await cli.stop(), 0);
  });

  it('explains a missing --config and an unknown command with exit 2', async () => {
    assert.equal((await runCli(['controller', 'run'])).code, 2);
    const res = await runCli(['frobnicate']);
    assert.equal(res.code, 2);
    assert.match(res.stderr, /unknown command 'frobnicate'/);
  });
});
