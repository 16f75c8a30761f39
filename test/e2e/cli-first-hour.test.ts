/**
 * The first hour with `svc`, tried as a new user would: what quickstart says while it works and in its banner, the
 * controller stopping however it was started (under npm's `npm exec` -> `sh -c` -> node chain too), the request
 * and refusal log without secrets, and `svc controller check` naming a bad SVC_LOG_LEVEL.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { spawnCli, stopLeftRunning } from '../helpers/cli.js';
import { runCliInProcess as runCli } from '../helpers/cli-in-process.js';
import { request } from '../helpers/https.js';
import { freePort } from '../helpers/ports.js';

const temp = mkdtempSync(join(tmpdir(), 'svc-first-hour-'));
after(async () => {
  await stopLeftRunning();
  rmSync(temp, { recursive: true, force: true });
});

// How the CLI helper runs `svc` from source (or from the compiled suite), for the shell wrapper below.
const compiled = import.meta.url.endsWith('.js');
const entry = fileURLToPath(new URL(compiled ? '../helpers/svc-cli.js' : '../helpers/svc-cli.ts', import.meta.url));
const loader = compiled ? ['--enable-source-maps'] : ['--import', 'tsx'];
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** Resolves once nothing accepts connections on the port (polls; the test's own timeout bounds it). */
async function portCloses(port: number): Promise<void> {
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (!open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Resolves once no process has `pid` (polls). */
async function processGone(pid: number): Promise<void> {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

describe('svc quickstart, the first hour', () => {
  const home = join(temp, 'home');
  let port: number;

  it('says what it is doing on a first run and shows the OIDC issuer and discovery URL', async () => {
    port = await freePort();
    const cli = spawnCli(['quickstart', '--home', home, '--port', String(port), '--ctrl-port', String(await freePort()), '--no-router', '--admin-user', 'operator', '--admin-password', 'first-password']);
    try {
      await cli.waitForOutput('Press Ctrl+C');
      const out = cli.stdout();
      assert.match(out, /creating .*the PKI/);
      assert.match(out, /hashing its password/);
      assert.match(out, /starting the controller/);
      const issuer = `https://127.0.0.1:${port}/oidc`;
      assert.ok(out.includes(`issuer ${issuer}`), out);
      assert.ok(out.includes(`discovery ${issuer}/.well-known/openid-configuration`), out);
      const ca = readFileSync(join(home, 'pki', 'ca-bundle.pem'), 'utf8');
      const discovery = await request(`${issuer}/.well-known/openid-configuration`, { ca });
      assert.equal(discovery.status, 200, 'the URL the banner shows answers');
      assert.equal(discovery.json().issuer, issuer);
    } finally {
      assert.equal(await cli.stop('SIGTERM'), 0);
    }
  });

  it('names the admin user on a reused home, without any password', async () => {
    const cli = spawnCli(['quickstart', '--home', home, '--port', String(port), '--ctrl-port', String(await freePort()), '--no-router']);
    try {
      await cli.waitForOutput('Press Ctrl+C');
      assert.match(cli.stdout(), /reusing/);
      assert.match(cli.stdout(), /admin user: operator \(password as set when this home was created\)/);
      assert.doesNotMatch(cli.stdout(), /first-password/);
      assert.doesNotMatch(cli.stdout(), /creating/, 'nothing is created again');
    } finally {
      await cli.stop('SIGINT');
    }
  });

  it('logs one info line per request with method, route, URL, status, time and the identity, and no secret in any line', async () => {
    const cli = spawnCli(['quickstart', '--home', home, '--port', String(port), '--ctrl-port', String(await freePort()), '--no-router'], { SVC_LOG_LEVEL: 'info' });
    const ca = readFileSync(join(home, 'pki', 'ca-bundle.pem'), 'utf8');
    const base = `https://127.0.0.1:${port}`;
    let forgedRequestId: unknown;
    const secrets = ['wrong-password-xyzzy', 'forged-session-token-1234', 'cookie-secret-5678', 'bearer-secret-9012', 'enrollment-secret-3456', 'first-password'];
    try {
      await cli.waitForOutput('Press Ctrl+C');
      const wrong = await request(`${base}/edge/client/v1/authenticate?method=password`, {
        ca,
        method: 'POST',
        body: { username: 'operator', password: 'wrong-password-xyzzy' },
      });
      assert.equal(wrong.status, 401);
      const forged = await request(`${base}/edge/management/v1/identities`, { ca, headers: { 'svc-session': 'forged-session-token-1234', cookie: 'sid=cookie-secret-5678' } });
      assert.equal(forged.status, 401);
      forgedRequestId = forged.headers['svc-request-id'];
      const bearer = await request(`${base}/edge/client/v1/current-identity`, { ca, headers: { authorization: 'Bearer bearer-secret-9012' } });
      assert.equal(bearer.status, 401);
      const enroll = await request(`${base}/edge/client/v1/enroll?method=ott&token=enrollment-secret-3456`, { ca, method: 'POST' });
      assert.ok(enroll.status >= 400 && enroll.status < 500);
      await request(`${base}/edge/client/v1/version`, { ca });
      const login = await request(`${base}/edge/client/v1/authenticate?method=password`, { ca, method: 'POST', body: { username: 'operator', password: 'first-password' } });
      assert.equal(login.status, 200);
      const token = String(login.json().data.token);
      const identities = await request(`${base}/edge/management/v1/identities?filter=name%3D%22operator%22`, { ca, headers: { 'svc-session': token } });
      assert.equal(identities.status, 200, 'the positive control: the same call with a real session');
      secrets.push(token);
    } finally {
      await cli.stop('SIGTERM');
    }
    const lines = cli
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const refused = lines.find((l) => l.msg === 'login refused');
    assert.ok(refused, 'a refused login is logged');
    assert.equal(refused.level, 30, 'at info');
    assert.equal(refused.method, 'password');
    assert.equal(typeof refused.reason, 'string');
    const unauthenticated = lines.find((l) => l.msg === 'request not authenticated' && String(l.url).startsWith('/edge/management/v1/identities'));
    assert.ok(unauthenticated, 'a request with a bad session is logged');
    assert.equal(unauthenticated.level, 30);
    assert.equal(unauthenticated.method, 'GET');
    assert.equal(unauthenticated.status, 401);
    assert.equal(typeof unauthenticated.reason, 'string');
    const version = lines.find((l) => l.msg === 'request' && l.url === '/edge/client/v1/version');
    assert.ok(version, 'an ordinary request is logged at info');
    assert.equal(version.level, 30);
    assert.equal(version.route, '/edge/client/v1/version');
    assert.equal(version.identity, undefined, 'nobody authenticated');
    assert.equal(version.status, 200);
    assert.equal(typeof version.responseTimeMs, 'number');
    assert.match(String(version.requestId), /^[0-9a-f-]{36}$/, 'a request line carries its request id');
    assert.equal(unauthenticated.requestId, forgedRequestId, 'the id the client was told');
    const enrollLine = lines.find((l) => String(l.url).startsWith('/edge/client/v1/enroll'));
    assert.ok(enrollLine);
    assert.equal(enrollLine.url, '/edge/client/v1/enroll?method=ott&token=[redacted]', 'the token query value is blanked, the rest kept');
    const listed = lines.find((l) => l.msg === 'request' && String(l.url).startsWith('/edge/management/v1/identities?'));
    assert.ok(listed, 'an authenticated request is logged');
    assert.equal(listed.level, 30);
    assert.equal(listed.route, '/edge/management/v1/identities');
    assert.equal(listed.status, 200);
    assert.equal(listed.identity, 'operator', 'the caller is named');
    assert.match(String(listed.identityId), /\S/);
    assert.equal(lines.filter((l) => l.requestId === listed.requestId).length, 1, 'one line per request');
    const all = cli.stderr();
    for (const secret of secrets) {
      assert.ok(!all.includes(secret), `${secret} must not appear in the log`);
    }
  });

  it('stops when the npm process that started it gets SIGTERM, leaving no process behind', async () => {
    // What `npx svc quickstart &` then `kill -TERM <pid>` does: npm runs `sh -c svc …`; the signal ends npm and the
    // shell, and nothing passes it on. Here the shell is the outer process (`; true` keeps it from exec-ing node).
    const command = [process.execPath, ...loader, entry, 'quickstart', '--home', home, '--port', String(port), '--ctrl-port', String(await freePort()), '--no-router'].map(quote).join(' ');
    const outer = spawn('sh', ['-c', `${command}; true`], { env: { ...process.env, SVC_LOG_LEVEL: 'warn', npm_command: 'exec' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    outer.stdout.on('data', (chunk) => (out += chunk));
    await new Promise<void>((resolve, reject) => {
      outer.stdout.on('data', () => out.includes('Press Ctrl+C') && resolve());
      outer.on('exit', () => reject(new Error(`the shell exited before the controller was up: ${out}`)));
    });
    const [controllerPid] = childrenOf(outer.pid as number);
    assert.ok(controllerPid, 'the controller runs under the shell');
    outer.kill('SIGTERM');
    await portCloses(port);
    await processGone(controllerPid);
  });

  it('stops on SIGHUP, as when the terminal that started it closes', async () => {
    const cli = spawnCli(['quickstart', '--home', home, '--port', String(port), '--ctrl-port', String(await freePort()), '--no-router']);
    await cli.waitForOutput('Press Ctrl+C');
    assert.equal(await cli.stop('SIGHUP'), 0);
    assert.match(cli.stdout(), /stopping \(SIGHUP\)/);
    await portCloses(port);
  });
});

describe('svc controller check and SVC_LOG_LEVEL', () => {
  const config = () => join(temp, 'home', 'config.yml');

  it('names a bad SVC_LOG_LEVEL with its value and the accepted levels, and exits 1', async () => {
    const result = await runCli(['controller', 'check', config()], { SVC_LOG_LEVEL: 'verbose' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /SVC_LOG_LEVEL: 'verbose' is not a log level; expected one of fatal, error, warn, info, debug, trace, silent/);
    assert.doesNotMatch(result.stdout, /configuration is valid/);
  });

  it('refuses to start quickstart with a bad SVC_LOG_LEVEL, saying why', async () => {
    const result = await runCli(['quickstart', '--home', join(temp, 'home'), '--port', '1'], { SVC_LOG_LEVEL: 'INFO' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /SVC_LOG_LEVEL: 'INFO' is not a log level/);
  });

  it('reports the config file problems and a bad SVC_LOG_LEVEL in the same run', async () => {
    // Beside the quickstart config, so that its relative paths still name the home's files.
    const file = join(temp, 'home', 'broken.yml');
    writeFileSync(file, readFileSync(config(), 'utf8').replace('sessionTimeout: 30m', 'sessionTimeout: 10s').replace('totp:\n', 'totp:\n    lockoutDuration: 1s\n'));
    const result = await runCli(['controller', 'check', file], { SVC_LOG_LEVEL: 'loud' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /edge\.api\.sessionTimeout: 10s must be at least 1m/);
    assert.match(result.stderr, /edge\.totp\.lockoutDuration: 1s must be at least 30s/);
    assert.match(result.stderr, /SVC_LOG_LEVEL: 'loud'/);
  });

  it('passes a good file with a good level', async () => {
    const result = await runCli(['controller', 'check', config()], { SVC_LOG_LEVEL: 'debug' });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /configuration is valid/);
  });
});
