/**
 * `svc edge` beyond the first guide (issue 18): an administrator with TOTP logs in (`--totp`, a terminal prompt, or a
 * refusal naming `--totp` in a script), password (updb) enrollment, `list --all` across pages, names for every
 * reference field (a terminator's service and router), and the usage errors a user meets: real `svc` processes
 * against a real controller on loopback over TLS.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { spawnCliInTerminal } from '../helpers/cli.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { injected } from '../helpers/https.js';
import { totpCode, totpTestClock, wrongTotpCode } from '../helpers/totp.js';

const STEP = 30_000;

describe(`svc edge: TOTP logins, updb enrollment, --all, names in every reference, usage errors (${testDialect})`, () => {
  const clock = totpTestClock();
  let ctl: TestController;
  const folders: string[] = [];
  let admin: ReturnType<typeof user>;
  let work: string;

  /** A fresh config folder, and `svc` run with it. */
  function user() {
    const xdg = mkdtempSync(join(tmpdir(), 'svc-cli-more-'));
    folders.push(xdg);
    const svc = (args: string[], stdin?: string) => runCliInProcess(args, { XDG_CONFIG_HOME: xdg, SVC_ADMIN_PASSWORD: '', SVC_ADMIN_USER: '' }, stdin === undefined ? {} : { stdin });
    /** Runs a command that must succeed, returning its stdout. */
    const ok = async (...args: string[]) => {
      const result = await svc(args);
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
      return result.stdout;
    };
    return { xdg, svc, ok, loginFile: join(xdg, 'svc', 'edge.json') };
  }

  /** Asserts exit code 2 (usage) and the message on stderr. */
  const usage = (result: { code: number | null; stderr: string }, message: RegExp) => {
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, message);
  };

  before(async () => {
    ctl = await startTestController({ clock });
    await ctl.adminToken(); // makes the default admin (admin / admin-password)
    work = mkdtempSync(join(tmpdir(), 'svc-cli-more-work-'));
    folders.push(work);
    admin = user();
    await admin.ok('edge', 'login', ctl.baseUrl, '--yes', '-p', 'admin-password');
  });
  after(async () => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    await ctl.close();
  });

  /** The code an authenticator app shows now, one TOTP step later than the last (a code is accepted once). */
  const nextCode = (provisioningUrl: string) => {
    clock.advance(STEP);
    return totpCode(provisioningUrl, clock.now());
  };

  /** An administrator with a password and verified TOTP, enrolled through the client API as an SDK would. */
  async function totpAdministrator(name: string): Promise<string> {
    await createIdentity(ctl.running.database, { name, isAdmin: true, username: name, password: `${name}-password` });
    const login = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: name, password: `${name}-password` } });
    const token = String(login.headers['svc-session']);
    const started = await ctl.fetch('/edge/client/v1/current-identity/mfa', { method: 'POST', headers: { 'svc-session': token } });
    assert.equal(started.status, 201, started.text);
    const provisioningUrl = started.json().data.provisioningUrl as string;
    const verified = await ctl.fetch('/edge/client/v1/current-identity/mfa/verify', { method: 'POST', headers: { 'svc-session': token }, body: { code: nextCode(provisioningUrl) } });
    assert.equal(verified.status, 200, verified.text);
    return provisioningUrl;
  }

  it('logs an administrator with TOTP in with --totp; a wrong code or a script without --totp saves nothing', async () => {
    const provisioningUrl = await totpAdministrator('tina');
    const { svc, loginFile } = user();
    const login = ['edge', 'login', ctl.baseUrl, '--yes', '-u', 'tina', '-p', 'tina-password'];

    const noCode = await svc(login);
    usage(noCode, /svc: tina must also give a TOTP code: add --totp CODE/);
    assert.equal(existsSync(loginFile), false);

    const wrong = await svc([...login, '--totp', wrongTotpCode(provisioningUrl, clock.now())]);
    assert.equal(wrong.code, 1, wrong.stderr);
    assert.match(wrong.stderr, /svc: could not log in as tina: the TOTP code was refused: HTTP 4\d\d \w+: .+; nothing was saved/);
    assert.equal(existsSync(loginFile), false);

    const good = await svc([...login, '--totp', nextCode(provisioningUrl)]);
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stdout, /^logged in to https:\/\/127\.0\.0\.1:\d+ as tina; session saved in /);
    const whoami = await svc(['edge', 'whoami']);
    assert.equal(whoami.code, 0, whoami.stderr);
    assert.match(whoami.stdout, /^tina \(\S+\) at https:\/\/127\.0\.0\.1:\d+, administrator\n$/);
    assert.equal((await svc(['edge', 'list', 'identities', 'name = "tina"', '--json'])).code, 0);
  });

  it('asks for the TOTP code on a terminal', async () => {
    const provisioningUrl = await totpAdministrator('theo');
    const { xdg, svc } = user();
    const cli = spawnCliInTerminal(['edge', 'login', ctl.baseUrl, '--yes', '-u', 'theo', '-p', 'theo-password'], { XDG_CONFIG_HOME: xdg, SVC_ADMIN_PASSWORD: '' });
    await cli.waitForOutput('TOTP code for theo: ', 120_000);
    cli.type(`${nextCode(provisioningUrl)}\r`);
    assert.equal(await cli.exited, 0, cli.stdout());
    assert.match(cli.stdout(), /logged in to https:\/\/127\.0\.0\.1:\d+ as theo/);
    assert.equal((await svc(['edge', 'whoami'])).code, 0);
  });

  it("shows the controller's own reason with the log-in-again hint when it refuses the saved session", async () => {
    const provisioningUrl = await totpAdministrator('tomas');
    const { svc, loginFile } = user();
    const login = await svc(['edge', 'login', ctl.baseUrl, '--yes', '-u', 'tomas', '-p', 'tomas-password', '--totp', nextCode(provisioningUrl)]);
    assert.equal(login.code, 0, login.stderr);
    // A legacy session that still owes its TOTP code (as older versions of this command could save) in place of the login.
    const partial = await ctl.fetch('/edge/management/v1/authenticate?method=password', { method: 'POST', body: { username: 'tomas', password: 'tomas-password' } });
    assert.equal(partial.json().data.authQueries.length, 1);
    // A login saved by a version before the OIDC login: a legacy session token and no OIDC tokens.
    const { oidc, ...saved } = JSON.parse(readFileSync(loginFile, 'utf8'));
    assert.equal(typeof oidc.accessToken, 'string');
    writeFileSync(loginFile, JSON.stringify({ ...saved, token: partial.json().data.token }));
    const refused = await svc(['edge', 'list', 'services']);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      new RegExp(`svc: the controller refused the session of tomas at ${ctl.baseUrl} \\(HTTP 401 UNAUTHORIZED: The session must answer its authentication queries before this operation\\): .*log in again with 'svc edge login ${ctl.baseUrl}'`),
    );
  });

  it('enrolls a updb JWT with a password from stdin; the user then logs in with it, and the token works once', async () => {
    const jwtFile = join(work, 'uma.jwt');
    assert.match(await admin.ok('edge', 'create', 'identity', 'uma', '--updb', 'uma-user', '-o', jwtFile), /enrollment JWT written to /);

    // Refused before anything is sent: the token still works afterwards.
    usage(await admin.svc(['edge', 'enroll', jwtFile, '-o', join(work, 'uma.json'), '--password-stdin'], 'uma-password-1\n'), /-o: a updb enrollment writes no identity file/);
    usage(await admin.svc(['edge', 'enroll', jwtFile, '--password-stdin'], ''), /--password-stdin: stdin ended before a password line/);
    usage(await admin.svc(['edge', 'enroll', jwtFile]), /a password is needed: -p PASSWORD or --password-stdin/);

    const enrolled = await admin.svc(['edge', 'enroll', jwtFile, '--password-stdin'], 'uma-password-1\n');
    assert.equal(enrolled.code, 0, enrolled.stderr);
    assert.match(enrolled.stdout, /no identity file is written for a password enrollment/);
    assert.ok(enrolled.stdout.includes(`svc edge login ${ctl.baseUrl} -u uma-user`), enrolled.stdout);
    assert.equal(existsSync(join(work, 'uma.json')), false);

    const uma = user();
    const login = await uma.svc(['edge', 'login', ctl.baseUrl, '--yes', '-u', 'uma-user', '--password-stdin'], 'uma-password-1\n');
    assert.equal(login.code, 0, login.stderr);
    assert.match((await uma.ok('edge', 'whoami')), /^uma \(/);

    const again = await admin.svc(['edge', 'enroll', jwtFile, '-p', 'uma-password-2']);
    assert.equal(again.code, 1, again.stderr);
    assert.match(again.stderr, /svc: the controller refused the enrollment: HTTP 410 INVALID_ENROLLMENT_ALREADY_ENROLLED: This enrollment token was already used, at /);
  });

  it('lists every page with --all, as a table and as one JSON array; without it, the first page', async () => {
    const token = await ctl.adminToken();
    const names = Array.from({ length: 505 }, (_, i) => `bulk-${String(i).padStart(3, '0')}`);
    // Through the API, a few at a time, injected without a socket (505 TLS handshakes cost seconds of CPU): the test
    // is about listing them.
    for (let i = 0; i < names.length; i += 25) {
      const created = await Promise.all(
        names.slice(i, i + 25).map((name) => injected(ctl.running.apps[0]!.app, '/edge/management/v1/services', { method: 'POST', headers: { 'svc-session': token }, body: { name, encryptionRequired: true } })),
      );
      for (const answer of created) assert.equal(answer.status, 201, answer.text);
    }
    const filter = 'name contains "bulk-"';

    const firstPage = JSON.parse(await admin.ok('edge', 'list', 'services', filter, '--json'));
    assert.ok(Array.isArray(firstPage));
    assert.equal(firstPage.length, 10);

    const all = JSON.parse(await admin.ok('edge', 'list', 'services', filter, '--all', '--json', '--sort', 'name'));
    assert.deepEqual(
      all.map((s: { name: string }) => s.name),
      names,
    );

    const table = (await admin.ok('edge', 'list', 'services', filter, '--all', '--columns', 'name')).trimEnd().split('\n');
    assert.equal(table.length, 1 + 505 + 1);
    assert.equal(table[0]?.trim(), 'name');
    assert.equal(new Set(table.slice(1, -1).map((line) => line.trim())).size, 505);
    assert.equal(table.at(-1), 'results: 1-505 of 505');
    assert.equal((await admin.ok('edge', 'list', 'services', filter)).trimEnd().split('\n').at(-1), 'results: 1-10 of 505');

    usage(await admin.svc(['edge', 'list', 'services', '--all', '--limit', '5']), /svc: list service: --all fetches every page itself; leave out --limit/);
    usage(await admin.svc(['edge', 'list', 'services', '--all', '--offset', '10']), /leave out --offset/);
  });

  it("creates a terminator with its service and router by name; the instance identity is kept as given", async () => {
    await admin.ok('edge', 'create', 'service', 'term-svc');
    await admin.ok('edge', 'create', 'edge-router', 'term-er');
    await admin.ok('edge', 'create', 'identity', 'term-host');
    const service = JSON.parse(await admin.ok('edge', 'get', 'service', 'term-svc'));
    const router = JSON.parse(await admin.ok('edge', 'get', 'edge-router', 'term-er'));
    const created = JSON.parse(
      await admin.ok('edge', 'create', 'terminator', '--service', 'term-svc', '--router', 'term-er', '--binding', 'transport', '--address', 'tcp:127.0.0.1:8080', '--identity', 'term-host', '--json'),
    );
    const terminator = JSON.parse(await admin.ok('edge', 'get', 'terminator', created.id));
    assert.equal(terminator.serviceId, service.id);
    assert.equal(terminator.routerId, router.id);
    // A terminator's `identity` is the hosting instance's own id, not an identity entity: never looked up, even when
    // an identity has that name.
    assert.equal(terminator.identity, 'term-host');

    // By id still works; a name that names nothing is refused, naming it.
    await admin.ok('edge', 'update', 'terminator', created.id, '--service', service.id, '--router', 'term-er', '--binding', 'transport', '--address', 'tcp:127.0.0.1:9090');
    assert.equal(JSON.parse(await admin.ok('edge', 'get', 'terminator', created.id)).address, 'tcp:127.0.0.1:9090');
    const unknown = await admin.svc(['edge', 'create', 'terminator', '--service', 'no-such-svc', '--router', 'term-er', '--binding', 'transport', '--address', 'tcp:127.0.0.1:1']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /svc: no service has the id or name 'no-such-svc'/);
  });

  it('names the problem of each further malformed command line', async () => {
    const { svc, xdg } = admin;
    await admin.ok('edge', 'create', 'service', 'usage-svc');
    const noPem = join(xdg, 'no-pem.txt');
    writeFileSync(noPem, 'not a certificate\n');
    const unknownField = join(xdg, 'unknown-field.json');
    writeFileSync(unknownField, JSON.stringify({ name: 'x', colour: 'blue' }));
    const notObject = join(xdg, 'not-object.json');
    writeFileSync(notObject, '[1, 2]');
    const segment = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const ottcaJwt = join(xdg, 'ottca.jwt');
    writeFileSync(ottcaJwt, `${segment({ alg: 'ES256' })}.${segment({ iss: ctl.baseUrl, sub: 'someone', jti: 'a-token', em: 'ottca' })}.c2ln`);
    const ottJwt = join(work, 'ott.jwt');
    await admin.ok('edge', 'create', 'identity', 'usage-ott', '-o', ottJwt);

    const cases: { args: string[]; stdin?: string; message: RegExp }[] = [
      { args: ['edge', 'update', 'service', 'usage-svc'], message: /svc: update service: nothing to change; see 'svc edge update service --help'/ },
      { args: ['edge', 'login', ctl.baseUrl, '--yes', '-p', 'x', '--password-stdin'], message: /error: option '-p, --password <password>' cannot be used with option '--password-stdin'/ },
      { args: ['edge', 'login', ctl.baseUrl, '--yes', '--password-stdin'], stdin: '', message: /svc: --password-stdin: stdin ended before a password line/ },
      { args: ['edge', 'login', ctl.baseUrl, '--yes', '--password-stdin'], stdin: '\n', message: /svc: --password-stdin: stdin ended before a password line/ },
      { args: ['edge', 'login', ctl.baseUrl, '--ca', noPem, '-p', 'x'], message: /svc: --ca: '.*no-pem\.txt' holds no PEM certificate/ },
      { args: ['edge', 'create', 'service', '--data', unknownField], message: /svc: --data: services have no field 'colour' \(fields: name, / },
      { args: ['edge', 'create', 'service', '--data', notObject], message: /svc: --data: file '.*not-object\.json' must hold a JSON object/ },
      { args: ['edge', 'enroll', ottcaJwt, '-o', 'x.json'], message: /svc: FILE\.jwt: enrollment method 'ottca' is not enrolled by this command \(only 'ott', with a certificate, and 'updb', with a password\)/ },
      { args: ['edge', 'enroll', ottJwt], message: /svc: -o: an ott enrollment writes an identity file: give -o FILE\.json/ },
      { args: ['edge', 'enroll', ottJwt, '-o', join(work, 'x.json'), '-p', 'secret'], message: /svc: -p\/--password-stdin: an ott enrollment takes no password/ },
      { args: ['edge', 'create', 'service', 'x', '--tags', '{"site":'], message: /option '-t, --tags <JSON\|@file\|k=v,…>' argument '\{"site":' is invalid\. expected a JSON object, @FILE or key=value pairs/ },
      { args: ['edge', 'create', 'edge-router', 'x', '--app-data', '{"a": [1}'], message: /option '--app-data <JSON\|@file\|k=v,…>' argument .* is invalid\. expected a JSON object/ },
    ];
    // A few at a time: each is a process start.
    for (let i = 0; i < cases.length; i += 3) {
      const batch = cases.slice(i, i + 3);
      const results = await Promise.all(batch.map(({ args, stdin }) => svc(args, stdin)));
      batch.forEach(({ args, message }, j) => {
        const result = results[j] as Awaited<ReturnType<typeof svc>>;
        assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
        assert.match(result.stderr, message, args.join(' '));
      });
    }
    assert.equal(JSON.parse(await admin.ok('edge', 'list', 'services', 'name = "x"', '--json')).length, 0, 'nothing refused was created');

    // A value the command line cannot check is refused by the controller, naming the field (exit 1).
    const wrongType = join(xdg, 'wrong-type.json');
    writeFileSync(wrongType, JSON.stringify({ name: 'typed', maxIdleTimeMillis: 'soon' }));
    const refused = await svc(['edge', 'create', 'service', '--data', wrongType]);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /svc: the controller refused POST \/services: HTTP 400 \w+: .*maxIdleTimeMillis/);
  });
});
