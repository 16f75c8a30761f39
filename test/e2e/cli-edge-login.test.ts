/**
 * `svc edge login/logout/whoami` and the command line's refusals, as a user runs them: real `svc` processes against a
 * real controller on loopback over TLS, each test with its own config folder (XDG_CONFIG_HOME).
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { verifiedCa } from '../helpers/cas.js';
import { spawnCliInTerminal } from '../helpers/cli.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { makeOpensslPki, type OpensslPki } from '../helpers/openssl-pki.js';
import { sdkIdentity } from '../helpers/sdk.js';

describe(`svc edge login, logout, whoami and usage errors (${testDialect})`, () => {
  let ctl: TestController;
  const folders: string[] = [];

  /** A folder logged in once, for tests about the command line itself (the commands come from the saved document). */
  let loggedIn: ReturnType<typeof user>;

  before(async () => {
    ctl = await startTestController();
    await ctl.adminToken(); // makes the default admin (admin / admin-password)
    loggedIn = user();
    const login = await loggedIn.svc(['edge', 'login', ctl.baseUrl, '--yes', '-p', 'admin-password']);
    if (login.code !== 0) throw new Error(`could not log in: ${login.stderr}`);
  });
  after(async () => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    await ctl.close();
  });

  /** A fresh config folder, and `svc` run with it. */
  function user() {
    const xdg = mkdtempSync(join(tmpdir(), 'svc-cli-edge-'));
    folders.push(xdg);
    const svc = (args: string[], stdin?: string, env: Record<string, string> = {}) =>
      runCliInProcess(args, { XDG_CONFIG_HOME: xdg, SVC_ADMIN_PASSWORD: '', SVC_ADMIN_USER: '', ...env }, stdin === undefined ? {} : { stdin });
    return { xdg, svc, loginFile: join(xdg, 'svc', 'edge.json') };
  }

  const caFingerprints = () =>
    ctl.ca
      .split(/(?=-----BEGIN CERTIFICATE-----)/)
      .filter((pem) => pem.includes('BEGIN CERTIFICATE'))
      .map((pem) => new X509Certificate(pem).fingerprint256);

  it('shows the CA fingerprints on first contact and logs in when the user answers yes; the login file is private', async () => {
    const { svc, loginFile } = user();
    const login = await svc(['edge', 'login', ctl.baseUrl, '-u', 'admin', '-p', 'admin-password'], 'y\n');
    assert.equal(login.code, 0, login.stderr);
    for (const fingerprint of caFingerprints()) assert.ok(login.stderr.includes(`SHA-256 ${fingerprint}`), login.stderr);
    assert.match(login.stderr, /Trust them for this controller\? \[y\/N\]/);
    assert.match(login.stdout, new RegExp(`logged in to ${ctl.baseUrl} as admin`));
    assert.equal(statSync(loginFile).mode & 0o777, 0o600);
    const stored = JSON.parse(readFileSync(loginFile, 'utf8'));
    assert.equal(stored.controller, ctl.baseUrl);
    assert.match(stored.ca, /BEGIN CERTIFICATE/);

    const whoami = await svc(['edge', 'whoami']);
    assert.equal(whoami.code, 0, whoami.stderr);
    assert.match(whoami.stdout, /^admin \(\S+\) at https:\/\/127\.0\.0\.1:\d+, administrator\n$/);
  });

  it('narrows a config folder and login file made readable by others before it writes the session', async () => {
    const { xdg, svc, loginFile } = user();
    mkdirSync(join(xdg, 'svc'), { recursive: true, mode: 0o755 });
    chmodSync(join(xdg, 'svc'), 0o755);
    writeFileSync(loginFile, '{}', { mode: 0o644 });
    chmodSync(loginFile, 0o644);
    const login = await svc(['edge', 'login', ctl.baseUrl, '--yes', '-u', 'admin', '-p', 'admin-password']);
    assert.equal(login.code, 0, login.stderr);
    assert.equal(statSync(join(xdg, 'svc')).mode & 0o777, 0o700);
    assert.equal(statSync(loginFile).mode & 0o777, 0o600);
    assert.equal(JSON.parse(readFileSync(loginFile, 'utf8')).controller, ctl.baseUrl);
    assert.deepEqual(readdirSync(join(xdg, 'svc')).filter((name) => name.endsWith('.tmp')), [], 'no temporary file left');
  });

  it('on a terminal, asks to confirm the fingerprints and then for the password without showing it', async () => {
    const { xdg, svc } = user();
    const cli = spawnCliInTerminal(['edge', 'login', ctl.baseUrl, '-u', 'admin'], { XDG_CONFIG_HOME: xdg, SVC_ADMIN_PASSWORD: '' });
    await cli.waitForOutput('[y/N] ', 120_000);
    cli.type('y\r');
    await cli.waitForOutput('password for admin: ', 120_000);
    cli.type('admin-password\r');
    assert.equal(await cli.exited, 0, cli.stdout());
    assert.match(cli.stdout(), /logged in to https:\/\/127\.0\.0\.1:\d+ as admin/);
    assert.doesNotMatch(cli.stdout(), /admin-password/, 'the password is not echoed');
    assert.equal((await svc(['edge', 'whoami'])).code, 0);
  });

  it('saves nothing when the user does not confirm the fingerprints', async () => {
    const { svc, loginFile } = user();
    const refused = await svc(['edge', 'login', ctl.baseUrl, '-p', 'admin-password'], 'n\n');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /the certificate authorities were not trusted; nothing was saved/);
    assert.equal(existsSync(loginFile), false);
    const noAnswer = await svc(['edge', 'login', ctl.baseUrl, '-p', 'admin-password'], '');
    assert.equal(noAnswer.code, 1);
    assert.equal(existsSync(loginFile), false);
  });

  it('asks about the CAs only at the first contact: a second login to the same URL, even after logout, is not asked', async () => {
    const { svc, loginFile } = user();
    const first = await svc(['edge', 'login', ctl.baseUrl, '-p', 'admin-password'], 'y\n');
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /Trust them for this controller\? \[y\/N\]/, 'the first contact asks');
    assert.equal((await svc(['edge', 'logout'])).code, 0);
    assert.equal(existsSync(loginFile), false);
    const second = await svc(['edge', 'login', ctl.baseUrl, '-p', 'admin-password'], '');
    assert.equal(second.code, 0, second.stderr);
    assert.doesNotMatch(second.stderr, /Trust them|SHA-256/, 'a known controller is not asked about again');
    assert.match(second.stdout, new RegExp(`logged in to ${ctl.baseUrl} as admin`));
    assert.equal((await svc(['edge', 'whoami'])).code, 0, 'the remembered CAs verify the controller');
  });

  it('in a script without a terminal and no answer, refuses naming --ca FILE and --yes and saves nothing', async () => {
    const { svc, loginFile, xdg } = user();
    const refused = await svc(['edge', 'login', ctl.baseUrl, '-p', 'admin-password'], '');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /stdin is not a terminal to ask on; pass --ca FILE .* or --yes /);
    assert.equal(existsSync(loginFile), false);
    assert.equal(existsSync(join(xdg, 'svc', 'known-controllers.json')), false, 'a refused controller is not remembered');
    const control = await svc(['edge', 'login', ctl.baseUrl, '--yes', '-p', 'admin-password'], '');
    assert.equal(control.code, 0, control.stderr);
  });

  it('tells a non-admin in one sentence that a management command needs an administrator, and what it can run instead', async () => {
    const headers = { 'svc-session': await ctl.adminToken() };
    const made = await ctl.fetch('/edge/management/v1/identities', { method: 'POST', headers, body: { name: 'cli-alice', type: 'User', isAdmin: false, enrollment: { updb: 'cli-alice' } } });
    assert.equal(made.status, 201, made.text);
    const { updb } = (await ctl.fetch(`/edge/management/v1/identities/${made.json().data.id}`, { headers })).json().data.enrollment;
    const enrolled = await ctl.fetch(`/edge/client/v1/enroll/updb?token=${updb.token}`, { method: 'POST', body: { password: 'alice-password' } });
    assert.equal(enrolled.status, 200, enrolled.text);

    const { svc } = user();
    assert.equal((await svc(['edge', 'login', ctl.baseUrl, '--yes', '-u', 'cli-alice', '-p', 'alice-password'])).code, 0);
    const refused = await svc(['edge', 'list', 'identities']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /GET \/identities needs an administrator and cli-alice is not one; as cli-alice you can run svc edge me \(your services, sessions and MFA\), svc edge whoami and svc edge logout/);
    const whoami = await svc(['edge', 'whoami']);
    assert.equal(whoami.code, 0, whoami.stderr);
    assert.match(whoami.stdout, /^cli-alice \(/);
    const admin = await loggedIn.svc(['edge', 'list', 'identities']);
    assert.equal(admin.code, 0, admin.stderr);
    assert.match(admin.stdout, /cli-alice/);

    // What the non-admin has instead: its own services, sessions, API session and TOTP, over the Client API.
    const service = await ctl.fetch('/edge/management/v1/services', { method: 'POST', headers, body: { name: 'alice-app', encryptionRequired: true } });
    assert.equal(service.status, 201, service.text);
    const grant = { name: 'alice-dials-app', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${made.json().data.id}`], serviceRoles: [`@${service.json().data.id}`] };
    assert.equal((await ctl.fetch('/edge/management/v1/service-policies', { method: 'POST', headers, body: grant })).status, 201);
    const services = await svc(['edge', 'me', 'services']);
    assert.equal(services.code, 0, services.stderr);
    assert.match(services.stdout, /^name +permissions +encryptionRequired +id\nalice-app +Dial +true +\S+\nresults: 1-1 of 1\n$/);
    const apiSession = await svc(['edge', 'me', 'api-session']);
    assert.match(apiSession.stdout, /^id: \S+$/m);
    assert.equal((await svc(['edge', 'me', 'sessions'])).code, 0);

    assert.match((await svc(['edge', 'me', 'mfa'])).stdout, /no TOTP enrolled: svc edge me mfa enroll/);
    const enrolled2 = await svc(['edge', 'me', 'mfa', 'enroll']);
    assert.equal(enrolled2.code, 0, enrolled2.stderr);
    const secret = /secret \(for manual entry\): (\S+)/.exec(enrolled2.stdout)?.[1] as string;
    assert.match(enrolled2.stdout, /otpauth URL: otpauth:\/\/totp\//);
    const wrong = await svc(['edge', 'me', 'mfa', 'verify', '000000']);
    assert.equal(wrong.code, 1, 'a wrong code is refused');
    const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate();
    assert.equal((await svc(['edge', 'me', 'mfa', 'verify', code])).code, 0);
    assert.match((await svc(['edge', 'me', 'mfa'])).stdout, /^TOTP verified$/m);
    const again = await svc(['edge', 'me', 'mfa', 'enroll']);
    assert.match(again.stderr, /TOTP is already enrolled: remove it first with svc edge me mfa remove CODE/);
    const recovery = /recovery codes \(keep them; each works once\): (\S+)/.exec(enrolled2.stdout)?.[1] as string;
    assert.equal((await svc(['edge', 'me', 'mfa', 'remove', recovery])).code, 0);
    assert.match((await svc(['edge', 'me', 'mfa'])).stdout, /no TOTP enrolled/);
  });

  it('logs in with an enrolled identity file (certificate login, its CAs trusted without asking) and names a missing or garbled file', async () => {
    const { svc, xdg, loginFile } = user();
    const enrolled = await sdkIdentity(ctl, 'cli-device');
    const file = join(xdg, 'cli-device.json');
    writeFileSync(file, JSON.stringify(enrolled.file));
    const login = await svc(['edge', 'login', ctl.baseUrl, '--identity', file], '');
    assert.equal(login.code, 0, login.stderr);
    assert.doesNotMatch(login.stderr, /Trust them/);
    assert.match(login.stdout, new RegExp(`logged in to ${ctl.baseUrl} as cli-device`));
    assert.match((await svc(['edge', 'whoami'])).stdout, /^cli-device \(/);

    const other = user();
    const missing = await other.svc(['edge', 'login', ctl.baseUrl, '--identity', join(xdg, 'nowhere.json')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--identity: identity file '.*nowhere\.json' cannot be read \(ENOENT\)/);
    const garbled = join(xdg, 'garbled.json');
    writeFileSync(garbled, '{"ztAPI": "https://x", "id": ');
    const broken = await other.svc(['edge', 'login', ctl.baseUrl, '--identity', garbled]);
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /--identity: identity file '.*garbled\.json' is not JSON/);
    const noKey = join(xdg, 'no-key.json');
    writeFileSync(noKey, JSON.stringify({ ...enrolled.file, id: { cert: enrolled.file.id.cert } }));
    const keyless = await other.svc(['edge', 'login', ctl.baseUrl, '--identity', noKey]);
    assert.equal(keyless.code, 2);
    assert.match(keyless.stderr, /--identity: identity file '.*no-key\.json': id\.key is missing/);
    assert.equal(existsSync(other.loginFile), false, 'nothing is saved for a bad file');
    assert.ok(existsSync(loginFile));
  });

  it('logs in without asking with --yes or --ca FILE, and the password from stdin or SVC_ADMIN_PASSWORD', async () => {
    const a = user();
    const yes = await a.svc(['edge', 'login', ctl.baseUrl, '--yes', '--password-stdin'], 'admin-password\n');
    assert.equal(yes.code, 0, yes.stderr);
    assert.doesNotMatch(yes.stderr, /\[y\/N\]/);

    const b = user();
    const withCa = await b.svc(['edge', 'login', ctl.baseUrl, '--ca', ctl.pki.caBundle], undefined, { SVC_ADMIN_PASSWORD: 'admin-password' });
    assert.equal(withCa.code, 0, withCa.stderr);
    assert.doesNotMatch(withCa.stderr, /SHA-256/);
    assert.equal((await b.svc(['edge', 'whoami'])).code, 0);
  });

  it('refuses a wrong password with exit code 1 and saves nothing', async () => {
    const { svc, loginFile } = user();
    const wrong = await svc(['edge', 'login', ctl.baseUrl, '--yes', '-p', 'not-the-password']);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /svc: could not log in as admin: HTTP 401 invalid_auth: The authentication request failed/);
    assert.equal(existsSync(loginFile), false);
  });

  it('logs in over OIDC: the saved login holds a Bearer access token and a refresh token, no legacy session', async () => {
    const { svc, loginFile } = user();
    assert.equal((await svc(['edge', 'login', ctl.baseUrl, '--yes', '-p', 'admin-password'])).code, 0);
    const saved = JSON.parse(readFileSync(loginFile, 'utf8'));
    assert.equal(saved.token, undefined, 'no legacy svc-session token is saved');
    assert.match(saved.oidc.accessToken, /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/, 'a JWT access token');
    assert.equal(typeof saved.oidc.refreshToken, 'string');
    assert.ok(Date.parse(saved.oidc.expiresAt) > Date.now());
    // The controller lists the login as an OIDC API session.
    const sessions = JSON.parse((await svc(['edge', 'list', 'api-sessions', 'kind = "oidc"', '-j'])).stdout);
    assert.ok(sessions.some((session: { identity?: { name?: string } }) => session.identity?.name === 'admin'));
  });

  it('refreshes an access token that is about to end before the command, and saves the new pair', async () => {
    const { svc, loginFile } = user();
    assert.equal((await svc(['edge', 'login', ctl.baseUrl, '--yes', '-p', 'admin-password'])).code, 0);
    const before = JSON.parse(readFileSync(loginFile, 'utf8'));
    writeFileSync(loginFile, JSON.stringify({ ...before, oidc: { ...before.oidc, expiresAt: new Date(Date.now() + 5_000).toISOString() } }));
    const listed = await svc(['edge', 'list', 'identities']);
    assert.equal(listed.code, 0, listed.stderr);
    const after = JSON.parse(readFileSync(loginFile, 'utf8'));
    assert.notEqual(after.oidc.accessToken, before.oidc.accessToken);
    assert.notEqual(after.oidc.refreshToken, before.oidc.refreshToken, 'the refresh token was spent and replaced');
    assert.ok(Date.parse(after.oidc.expiresAt) > Date.now() + 60_000);
    assert.equal(statSync(loginFile).mode & 0o777, 0o600);
  });

  it('tells the user to log in again when the refresh token was revoked, and when the access token is refused', async () => {
    const { svc, loginFile } = user();
    assert.equal((await svc(['edge', 'login', ctl.baseUrl, '--yes', '-p', 'admin-password'])).code, 0);
    const saved = JSON.parse(readFileSync(loginFile, 'utf8'));
    const revoked = await ctl.fetch('/oidc/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: saved.oidc.refreshToken, client_id: 'svc' }).toString(),
    });
    assert.equal(revoked.status, 200);
    writeFileSync(loginFile, JSON.stringify({ ...saved, oidc: { ...saved.oidc, expiresAt: new Date(Date.now() - 1_000).toISOString() } }));
    const refused = await svc(['edge', 'list', 'identities']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, new RegExp(`the controller no longer takes the login of admin at ${ctl.baseUrl} \\(its refresh token expired or was revoked\\); log in again with 'svc edge login ${ctl.baseUrl}'`));

    writeFileSync(loginFile, JSON.stringify({ ...saved, oidc: { ...saved.oidc, accessToken: `${saved.oidc.accessToken.slice(0, -4)}AAAA` } }));
    const forged = await svc(['edge', 'list', 'identities']);
    assert.equal(forged.code, 1);
    // The controller's own reason, then the hint.
    assert.match(forged.stderr, new RegExp(`svc: the controller refused the session of admin at ${ctl.baseUrl} \\(HTTP 401 \\w+: [^)]+\\): it expired, was revoked or is incomplete; log in again with 'svc edge login ${ctl.baseUrl}'`));

    const logout = await svc(['edge', 'logout']);
    assert.equal(logout.code, 0);
    assert.equal(existsSync(loginFile), false);
    const notLoggedIn = await svc(['edge', 'whoami']);
    assert.equal(notLoggedIn.code, 2);
    assert.match(notLoggedIn.stderr, /svc: not logged in: run 'svc edge login URL' first/);
  });

  it('revokes the refresh token at logout', async () => {
    const { svc, loginFile } = user();
    assert.equal((await svc(['edge', 'login', ctl.baseUrl, '--yes', '-p', 'admin-password'])).code, 0);
    const { oidc } = JSON.parse(readFileSync(loginFile, 'utf8'));
    assert.equal((await svc(['edge', 'logout'])).code, 0);
    const refreshed = await ctl.fetch('/oidc/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: oidc.refreshToken, client_id: 'svc' }).toString(),
    });
    assert.equal(refreshed.status, 400, 'the refresh token no longer works');
  });

  it('names the problem and exits 2 for every malformed command line', async () => {
    const { svc, xdg } = loggedIn;
    const notJson = join(xdg, 'not.json');
    writeFileSync(notJson, '{ nope');
    const cases: { args: string[]; message: RegExp }[] = [
      { args: ['edge', 'login', 'ftp://127.0.0.1:1280', '--yes', '-p', 'x'], message: /URL: expected an https:\/\/ address, not 'ftp:\/\/127\.0\.0\.1:1280'/ },
      { args: ['edge', 'login', 'not a url', '--yes', '-p', 'x'], message: /URL: expected the controller's address such as https:\/\/127\.0\.0\.1:1280/ },
      { args: ['edge', 'login'], message: /error: missing required argument 'url'/ },
      { args: ['edge', 'login', ctl.baseUrl, '--yes'], message: /a password is needed: -p PASSWORD, --password-stdin or SVC_ADMIN_PASSWORD/ },
      { args: ['edge', 'login', ctl.baseUrl, '--ca', join(xdg, 'missing.pem'), '-p', 'x'], message: /--ca: cannot read '.*missing\.pem'/ },
      { args: ['edge', 'list', 'identitys'], message: /error: unknown command 'identitys'\n\(Did you mean identity\?\)/ },
      { args: ['edge', 'lst'], message: /error: unknown command 'lst'\n\(Did you mean one of list, ls\?\)/ },
      { args: ['edge', 'list'], message: /Usage: svc edge list/ },
      { args: ['edge', 'list', 'identities', '--limit', 'ten'], message: /option '--limit <n>' argument 'ten' is invalid\. expected a whole number/ },
      { args: ['edge', 'create', 'edge-router', 'r', '--cost', 'abc'], message: /option '--cost <integer 0\.\.65535>' argument 'abc' is invalid\. expected an integer from 0 to 65535/ },
      { args: ['edge', 'create', 'edge-router', 'r', '--cost', '70000'], message: /argument '70000' is invalid\. expected an integer from 0 to 65535/ },
      { args: ['edge', 'create', 'identity', 'x', '--is-admin', 'maybe'], message: /option '--is-admin \[true\|false\]' argument 'maybe' is invalid\. expected true or false/ },
      { args: ['edge', 'create', 'service-policy', 'p', 'Dail'], message: /create service-policy: TYPE 'Dail' is invalid: expected one of Dial, Bind/ },
      { args: ['edge', 'create', 'service-policy', 'p'], message: /create service-policy: missing TYPE \(or --type\)/ },
      { args: ['edge', 'create', 'service', 'crm', '--colour', 'blue'], message: /error: unknown option '--colour'/ },
      { args: ['edge', 'create', 'service', 'crm', '--tags', 'site'], message: /'site' has no key=value/ },
      { args: ['edge', 'create', 'service', '--data', notJson], message: /--data: file '.*not\.json' is not valid JSON at line 1, column 3: / },
      { args: ['edge', 'enroll', join(xdg, 'missing.jwt')], message: /FILE\.jwt: cannot read '.*missing\.jwt'/ },
      { args: ['edge', 'enroll', join(xdg, 'missing.jwt'), '-o', 'id.json'], message: /FILE\.jwt: cannot read '.*missing\.jwt'/ },
      { args: ['edge', 'enroll', notJson, '-o', 'id.json'], message: /does not hold a JWT/ },
      { args: ['edge', 'get', 'identity'], message: /error: missing required argument 'id\|name'/ },
      { args: ['completion', 'fish'], message: /value 'fish' is invalid for argument 'shell'\. Allowed choices are bash, zsh/ },
      { args: ['quickstrat'], message: /\(Did you mean quickstart\?\)/ },
    ];
    // A few at a time: each is a process start.
    for (let i = 0; i < cases.length; i += 3) {
      const batch = cases.slice(i, i + 3);
      const results = await Promise.all(batch.map(({ args }) => svc(args)));
      batch.forEach(({ args, message }, j) => {
        const result = results[j] as Awaited<ReturnType<typeof svc>>;
        assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
        assert.match(result.stderr, message, args.join(' '));
      });
    }
  });

  it('answers --help for every command, the root naming the environment variables and exit codes and the others pointing there, and -v with the version', async () => {
    const { svc } = loggedIn;
    const root = await svc(['--help']);
    for (const variable of ['SVC_HOME', 'SVC_ADMIN_PASSWORD', 'SVC_LOG_LEVEL']) assert.ok(root.stdout.includes(variable), `svc --help names ${variable}`);
    assert.match(root.stdout, /Exit codes: 0 success, 1 errors found or refused by the controller, 2 usage/);
    for (const args of [['quickstart', '--help'], ['controller', 'check', '--help'], ['router', 'validate', '--help'], ['edge', '--help'], ['edge', 'login', '--help'], ['edge', 'create', 'identity', '--help']]) {
      const help = await svc(args);
      assert.equal(help.code, 0, args.join(' '));
      assert.match(help.stdout, /Environment variables and exit codes: svc --help/, args.join(' '));
    }
    const version = await svc(['-v']);
    assert.equal(version.code, 0);
    assert.match(version.stdout, /^svc \d+\.\d+\.\d+ \(/);
  });

  it('lists every Management API resource in svc edge --help and their fields in svc edge create --help, before any login', async () => {
    const { svc } = user();
    const help = await svc(['edge', '--help']);
    assert.equal(help.code, 0);
    for (const resource of ['identity', 'service', 'service-policy', 'edge-router', 'edge-router-policy', 'service-edge-router-policy', 'config', 'config-type', 'auth-policy', 'posture-check', 'terminator', 'external-jwt-signer', 'enrollment', 'authenticator', 'audit-log']) {
      assert.match(help.stdout, new RegExp(`^  ${resource} +list`, 'm'), resource);
    }
    const create = await svc(['edge', 'create', '--help']);
    assert.match(create.stdout, /^ {2}service-policy: --name\* --type\* --semantic --identity-roles --service-roles/m);
    const identity = await svc(['edge', 'create', 'identity', '--help']);
    assert.match(identity.stdout, /--role-attributes <a,b,…>/);
    assert.match(identity.stdout, /--admin +same as --is-admin true/);
    assert.match(identity.stdout, /-o, --output <file> +write the enrollment JWT/);
  });

  it('prints completion scripts and completes commands, resources and options from the same tree', async () => {
    const { svc } = loggedIn;
    const bash = await svc(['completion', 'bash']);
    assert.equal(bash.code, 0);
    assert.match(bash.stdout, /complete -o default -F _svc_complete svc/);
    const zsh = await svc(['completion', 'zsh']);
    assert.match(zsh.stdout, /^#compdef svc/);
    assert.equal((await svc(['__complete', 'edge', 'cre'])).stdout, 'create\n');
    assert.equal((await svc(['__complete', 'edge', 'create', 'service-p'])).stdout, 'service-policies\nservice-policy\n');
    assert.match((await svc(['__complete', 'edge', 'create', 'identity', '--rol'])).stdout, /^--role-attributes\n$/);
    assert.match((await svc(['__complete', ''])).stdout, /^completion\ncontroller\nedge\next-jwt\nquickstart\nrouter\nsdk\ntunnel\nversion\n$/);
  });

  it("refuses a fake controller whose server certificate a verified third-party CA issued, though the user accepted the real controller's CAs", async () => {
    // A partner's CA, verified for client logins; whoever holds its key issues a server certificate for 127.0.0.1.
    const partner = makeOpensslPki('Partner');
    const fake = await fakeController(partner);
    try {
      await verifiedCa(ctl, partner, 'partner');
      const { svc, xdg, loginFile } = user();
      const login = await svc(['edge', 'login', ctl.baseUrl, '--yes', '-p', 'admin-password']);
      assert.equal(login.code, 0, login.stderr);
      const stored = JSON.parse(readFileSync(loginFile, 'utf8'));

      // The saved CAs given back to login, pointed at the fake controller: the password must not reach it.
      const caFile = join(xdg, 'accepted-ca.pem');
      writeFileSync(caFile, stored.ca);
      const toFake = await svc(['edge', 'login', fake.url, '--ca', caFile, '-p', 'admin-password']);
      assert.equal(toFake.code, 1, toFake.stderr);
      assert.match(toFake.stderr, /certificate/i);
      assert.deepEqual(fake.requests, [], 'the password never reached the fake controller');
      // The saved login redirected to the fake controller (a DNS answer the attacker controls): the session must not reach it.
      writeFileSync(loginFile, JSON.stringify({ ...stored, controller: fake.url }), { mode: 0o600 });
      const whoami = await svc(['edge', 'whoami']);
      assert.notEqual(whoami.code, 0, whoami.stdout);
      assert.deepEqual(fake.requests, [], 'the session never reached the fake controller');
      assert.deepEqual(certificateFingerprints(stored.ca), certificateFingerprints(ctl.ca), "what is stored is the controller's own CAs, nothing more");

      // Positive control: the same saved CAs still reach the real controller.
      writeFileSync(loginFile, JSON.stringify(stored), { mode: 0o600 });
      assert.equal((await svc(['edge', 'whoami'])).code, 0);
    } finally {
      await fake.close();
      partner.dispose();
    }
  });
});

/** SHA-256 fingerprints of every certificate of a PEM bundle, sorted. */
function certificateFingerprints(bundle: string): string[] {
  return bundle
    .split(/(?=-----BEGIN CERTIFICATE-----)/)
    .filter((pem) => pem.includes('BEGIN CERTIFICATE'))
    .map((pem) => new X509Certificate(pem).fingerprint256)
    .sort();
}

/** An HTTPS server on 127.0.0.1 posing as a controller with a server certificate `pki` issued; it records each request. */
async function fakeController(pki: OpensslPki): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const server = pki.issue('127.0.0.1', {
    extensions: ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=serverAuth', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
  });
  const requests: string[] = [];
  const https = createServer({ key: server.keyPem, cert: server.certPem + pki.intermediate.certPem }, (req, res) => {
    requests.push(`${req.method} ${req.url} session=${String(req.headers['svc-session'] ?? '')}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { token: 'fake', identity: { id: 'x', name: 'admin' } } }));
  });
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  const { port } = https.address() as AddressInfo;
  return { url: `https://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => https.close(() => resolve())) };
}
