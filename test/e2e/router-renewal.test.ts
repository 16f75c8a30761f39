/**
 * Router certificate renewal against a real controller over mutual TLS (issue 41 must-have 7): `svc router renew`
 * and the running router's scheduler (router/enrollment/renewal.ts) post /enroll/extend/router with the current
 * client certificate; the controller then holds the new certificate's fingerprint and refuses the old one. The
 * scheduler renews at the configured share of the lifetime, retries with doubling waits while the controller is
 * down, and stops with one sentence when the certificate has expired.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { RouterFile } from '../../src/router-config/schema.js';
import { validateRouterConfig } from '../../src/router-config/validate.js';
import { createRenewal, renewalTime, type RenewalLog } from '../../src/router/enrollment/renewal.js';
import type { RouterIdentity } from '../../src/router/enrollment/identity-files.js';
import { loadRouterIdentity } from '../../src/router/enrollment/identity-files.js';
import type { RouterSetupError } from '../../src/router/errors.js';
import { manualClock, systemClock } from '../../src/shared/clock.js';
import { runCliInProcess as runCli } from '../helpers/cli-in-process.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { newSharedDatabase, testDialect } from '../helpers/database.js';
import { edgeRouterDetail, newEdgeRouter, routerHome, type RouterHome } from '../helpers/router-home.js';

const sha1Hex = (pem: string) => new X509Certificate(pem).fingerprint.replace(/:/g, '').toLowerCase();

/** Log lines by level, in order. */
function recordingLog(): RenewalLog & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
}

/** Resolves once `check` holds, looking again every few milliseconds (the test's own timeout bounds the wait). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

const configOf = (home: RouterHome): RouterFile => validateRouterConfig(readFileSync(home.config, 'utf8'), home.config).config as RouterFile;
const identityOf = (home: RouterHome) => loadRouterIdentity(configOf(home).identity, home.dir, { allowExpired: true });

describe(`router certificate renewal (${testDialect})`, () => {
  let ctl: TestController;
  const homes: RouterHome[] = [];
  /** A router created at `at` and enrolled there with svc router enroll. */
  const enrolled = async (name: string, at = ctl, modify?: (config: Record<string, any>) => void) => {
    const router = await newEdgeRouter(at, name);
    const home = routerHome(router.jwt, modify);
    homes.push(home);
    const result = await runCli(['router', 'enroll', '--jwt', home.jwtFile, '--config', home.config]);
    if (result.code !== 0) throw new Error(`enrollment failed: ${result.stderr}`);
    return { ...router, home };
  };
  const extendWith = (cert: string, key: string) =>
    ctl.fetch('/edge/client/v1/enroll/extend/router', { method: 'POST', body: { certCsr: 'x', serverCertCsr: 'x' }, cert, key });
  before(async () => {
    ctl = await startTestController();
  });
  after(async () => {
    for (const home of homes) home.remove();
    await ctl.close();
  });

  it('svc router renew replaces both certificates with the same key; the controller then refuses the old certificate', async () => {
    const router = await enrolled('er-renew-cli');
    const old = await identityOf(router.home);

    const { code, stdout, stderr } = await runCli(['router', 'renew', '--config', router.home.config]);

    assert.equal(code, 0, stderr);
    assert.match(stdout, new RegExp(`renewed the certificates of edge router ${router.id}: valid until \\d{4}-`));
    const renewed = await identityOf(router.home);
    assert.notEqual(sha1Hex(renewed.certPem), sha1Hex(old.certPem));
    assert.equal((await edgeRouterDetail(ctl, router.id)).fingerprint, sha1Hex(renewed.certPem), 'the controller holds the new certificate');
    assert.notEqual(renewed.serverLeaf.fingerprint256, old.serverLeaf.fingerprint256, 'the server certificate is new too');
    assert.equal(renewed.serverLeaf.subjectAltName, old.serverLeaf.subjectAltName, 'with the same names');
    assert.equal(renewed.keyPem, old.keyPem, 'the key is kept');
    const withOld = await extendWith(old.certPem, old.keyPem);
    assert.equal(withOld.status, 401, 'the old certificate is refused though unexpired');
    assert.equal((await runCli(['router', 'renew', '--config', router.home.config])).code, 0, 'positive control: the new certificate renews again');
  });

  it('svc router renew with a certificate the controller no longer holds exits 1 with one sentence and changes no file', async () => {
    const router = await enrolled('er-renew-stale');
    const oldCert = readFileSync(router.home.files.cert, 'utf8');
    const oldServer = readFileSync(router.home.files.server_cert, 'utf8');
    assert.equal((await runCli(['router', 'renew', '--config', router.home.config])).code, 0);
    writeFileSync(router.home.files.cert, oldCert);
    writeFileSync(router.home.files.server_cert, oldServer);
    const before = router.home.written();

    const { code, stderr } = await runCli(['router', 'renew', '--config', router.home.config]);

    assert.equal(code, 1);
    assert.match(stderr, /svc: the controller at https:\/\/127\.0\.0\.1:\d+ no longer accepts this router's certificate \(401 UNAUTHORIZED: .*\); re-enroll the router \(svc edge do edge-router re-enroll NAME -o router\.jwt\)/);
    assert.deepEqual(router.home.written(), before);
  });

  it('svc router renew before enrollment names the missing file and the command that makes it', async () => {
    const router = await newEdgeRouter(ctl, 'er-renew-unenrolled');
    const home = routerHome(router.jwt);
    homes.push(home);
    const { code, stderr } = await runCli(['router', 'renew', '--config', home.config]);
    assert.equal(code, 1);
    assert.match(stderr, /svc: router\.yml: identity\.cert .*certs\/client\.pem: no such file; enroll first with svc router enroll --jwt FILE --config .*router\.yml/);
  });

  it('schedules the renewal at notBefore plus lifetimeShare of the lifetime of the earlier-expiring certificate', async () => {
    const router = await enrolled('er-schedule', ctl, (config) => (config.identity.renewal = { lifetimeShare: 0.5 }));
    const identity = await identityOf(router.home);
    const log = recordingLog();
    const renewal = createRenewal({ configPath: router.home.config, config: configOf(router.home), endpointsFile: router.home.files.endpoints, clock: systemClock, log, onRenewed: () => {} });
    await renewal.start();
    const from = Date.parse(identity.clientLeaf.validFrom);
    const lifetime = Date.parse(identity.notAfter.toISOString()) - from;
    assert.equal(renewal.nextAttemptAt()?.getTime(), renewalTime(identity, 0.5).getTime());
    assert.ok(Math.abs((renewal.nextAttemptAt()?.getTime() ?? 0) - (from + lifetime / 2)) <= 1000, 'half way through the lifetime');
    assert.match(log.lines[0] ?? '', /^info certificate renewal scheduled for .* \(50 % of the certificate lifetime\)/);
    renewal.stop();
  });

  it('renews at once when the share of the lifetime has passed, and hands the new identity to onRenewed', async () => {
    const router = await enrolled('er-due');
    const identity = await identityOf(router.home);
    const clock = manualClock(new Date(renewalTime(identity, 0.8).getTime() + 60_000));
    const log = recordingLog();
    let renewed: (identity: RouterIdentity) => void = () => {};
    const done = new Promise<RouterIdentity>((resolve) => (renewed = resolve));
    const renewal = createRenewal({ configPath: router.home.config, config: configOf(router.home), endpointsFile: router.home.files.endpoints, clock, log, onRenewed: (id) => renewed(id) });
    await renewal.start();

    const next = await done;

    assert.equal((await edgeRouterDetail(ctl, router.id)).fingerprint, sha1Hex(next.certPem));
    assert.notEqual(sha1Hex(next.certPem), sha1Hex(identity.certPem));
    await until(() => log.lines.some((line) => line.startsWith('info renewed the router certificates')));
    assert.equal(renewal.nextAttemptAt()?.getTime(), renewalTime(next, 0.8).getTime(), 'the next renewal follows the new certificates');
    renewal.stop();
  });

  it('stops with one sentence and no retry when the client certificate has expired, changing nothing', async () => {
    const router = await enrolled('er-expired-cert');
    const identity = await identityOf(router.home);
    const clock = manualClock(new Date(identity.notAfter.getTime() + 60_000));
    const log = recordingLog();
    let gaveUp: (error: RouterSetupError) => void = () => {};
    const stopped = new Promise<RouterSetupError>((resolve) => (gaveUp = resolve));
    const before = router.home.written();
    const renewal = createRenewal({ configPath: router.home.config, config: configOf(router.home), endpointsFile: router.home.files.endpoints, clock, log, onRenewed: () => assert.fail('must not renew'), onGaveUp: (error) => gaveUp(error) });
    await renewal.start();

    const error = await stopped;

    assert.match(error.message, /^identity\.cert: the client certificate expired at .* and the controller renews only a valid one; re-enroll the router/);
    assert.equal(log.lines.filter((line) => line.startsWith('error ')).length, 1);
    assert.equal(log.lines.filter((line) => line.startsWith('warn ')).length, 0, 'no retry');
    assert.equal(renewal.nextAttemptAt(), undefined);
    assert.deepEqual(router.home.written(), before);
    assert.equal((await edgeRouterDetail(ctl, router.id)).fingerprint, sha1Hex(identity.certPem));
    renewal.stop();
  });

  it('retries with doubling waits while the controller is down, and renews once it is back', async () => {
    const shared = await newSharedDatabase();
    let first: TestController | undefined = await startTestController({ databaseTarget: shared.db });
    let second: TestController | undefined;
    try {
      const router = await enrolled('er-retry', first);
      const ports = first.ports;
      await first.close();
      first = undefined;
      const identity = await identityOf(router.home);
      const clock = manualClock(new Date(renewalTime(identity, 0.8).getTime() + 1));
      const log = recordingLog();
      let renewed: (identity: RouterIdentity) => void = () => {};
      const done = new Promise<RouterIdentity>((resolve) => (renewed = resolve));
      const settings = { lifetimeShare: 0.8, minRetryIntervalMs: 20, maxRetryIntervalMs: 80 };
      const renewal = createRenewal({ configPath: router.home.config, config: configOf(router.home), endpointsFile: router.home.files.endpoints, clock, log, settings, onRenewed: (id) => renewed(id) });
      await renewal.start();
      const failures = () => log.lines.filter((line) => line.startsWith('warn '));
      await until(() => failures().length >= 4);
      assert.match(failures()[0] ?? '', /^warn certificate renewal failed \(attempt 1\): cannot reach the controller at https:\/\/127\.0\.0\.1:\d+ \(connect ECONNREFUSED.*\); next attempt in 20 ms$/);
      assert.deepEqual(failures().slice(0, 4).map((line) => /next attempt in (\d+) ms/.exec(line)?.[1]), ['20', '40', '80', '80'], 'doubling up to maxRetryInterval');

      second = await startTestController({ databaseTarget: shared.db, ports });
      const next = await done;

      assert.equal((await edgeRouterDetail(second, router.id)).fingerprint, sha1Hex(next.certPem));
      assert.notEqual(sha1Hex(next.certPem), sha1Hex(identity.certPem));
      renewal.stop();
    } finally {
      await first?.close();
      await second?.close();
      await shared.drop();
    }
  });
});
