/**
 * The `edge` section of the controller config: address, duration limits, the OIDC token lifetime
 * adjustments (warnings, config still loads) and the TOTP host name.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONFIG_FILE, EDGE, controllerYaml, lineOf, loadText, printed } from '../helpers/config-fixture.js';

const F = CONFIG_FILE;

/** EDGE with extra lines under `edge:` (indented by the caller). */
function edgeWith(extra: string): string {
  return `${EDGE}${extra}`;
}

describe('edge.api', () => {
  it('refuses an address whose port is out of range', async () => {
    const text = controllerYaml({ edge: EDGE.replace('ctrl.example.com:1280', 'ctrl.example.com:70000') });
    const result = await loadText(text);

    assert.equal(result.config, undefined);
    assert.deepEqual(printed(result), [
      `${F}:10:14: edge.api.address: 'ctrl.example.com:70000': port '70000' must be a number from 1 to 65535`,
    ]);
  });

  it('refuses a session timeout below one minute', async () => {
    const text = controllerYaml({ edge: EDGE.replace('api:\n', 'api:\n    sessionTimeout: 59s\n') });
    const result = await loadText(text);

    assert.deepEqual(printed(result), [`${F}:10:21: edge.api.sessionTimeout: 59s must be at least 1m`]);
  });

  it('requires edge.api.address to be a bind point address of a listener hosting edge-client', async () => {
    const text = controllerYaml({ edge: EDGE.replace('ctrl.example.com:1280', 'other.example.com:1280') });
    const result = await loadText(text);

    assert.deepEqual(printed(result), [
      `${F}:10:14: edge.api.address: 'other.example.com:1280' must equal the address of a bind point of a listener hosting edge-client (candidates: ctrl.example.com:1280)`,
    ]);
  });

  it('reads the login work bounds of edge.api.authQueue, with defaults, and refuses out-of-range values', async () => {
    assert.deepEqual((await loadText(controllerYaml())).config?.edge?.api.authQueue, { concurrency: 8, maxQueued: 256, maxWaitMs: 10_000 });
    const set = await loadText(controllerYaml({ edge: EDGE.replace('api:\n', 'api:\n    authQueue: { concurrency: 2, maxQueued: 0, maxWait: 1s }\n') }));
    assert.deepEqual(set.config?.edge?.api.authQueue, { concurrency: 2, maxQueued: 0, maxWaitMs: 1000 });
    const short = controllerYaml({ edge: EDGE.replace('api:\n', 'api:\n    authQueue:\n      maxWait: 10ms\n') });
    assert.deepEqual(printed(await loadText(short)), [`${F}:${lineOf(short, 'maxWait')}:16: edge.api.authQueue.maxWait: 10ms must be at least 100ms`]);
    for (const bad of ['concurrency: 0', 'maxQueued: -1', 'concurrency: 2.5', 'oops: 1']) {
      const result = await loadText(controllerYaml({ edge: EDGE.replace('api:\n', `api:\n    authQueue:\n      ${bad}\n`) }));
      assert.equal(result.config, undefined, bad);
      assert.match(printed(result)[0] ?? '', new RegExp(`edge\\.api\\.authQueue\\.${bad.split(':')[0]}`), bad);
    }
  });

  it('compares addresses without regard to the case of the host name', async () => {
    const text = controllerYaml({ edge: EDGE.replace('ctrl.example.com:1280', 'CTRL.example.com:1280') });
    const { config } = await loadText(text);

    assert.ok(config);
  });
});

describe('edge.enrollment', () => {
  it('refuses enrollment durations below five minutes and unparsable ones', async () => {
    const text = controllerYaml({ edge: edgeWith('    edgeIdentity:\n      duration: 4m\n    edgeRouter:\n      duration: 3 hours\n') });
    const result = await loadText(text);

    assert.deepEqual(printed(result), [
      `${F}:16:17: edge.enrollment.edgeIdentity.duration: 4m must be at least 5m`,
      `${F}:18:17: edge.enrollment.edgeRouter.duration: '3 hours' is not a duration (use a number with a unit: ms, s, m, h; e.g. 30s, 1h30m)`,
    ]);
  });

  it('requires the signing certificate', async () => {
    const text = controllerYaml({ edge: 'edge:\n  api:\n    address: ctrl.example.com:1280\n  enrollment: {}\n' });
    const result = await loadText(text);

    assert.deepEqual(printed(result), [`${F}:11:3: edge.enrollment.signingCert: missing required key`]);
  });
});

describe('edge.oidc', () => {
  it('raises a refresh token lifetime that does not outlive the access token by a minute, with a warning', async () => {
    const text = controllerYaml({ edge: `${EDGE}  oidc:\n    refreshTokenDuration: 20m\n` });
    const { config, diagnostics } = await loadText(text);

    assert.equal(config?.edge?.oidc.refreshTokenDurationMs, 31 * 60_000);
    assert.deepEqual(printed({ config, diagnostics }), [
      `${F}:16:27: edge.oidc.refreshTokenDuration: warning: refreshTokenDuration 20m must be at least 1m longer than accessTokenDuration 30m; using 31m`,
    ]);
  });

  it('raises token lifetimes below one minute to one minute, with a warning each', async () => {
    const text = controllerYaml({ edge: `${EDGE}  oidc:\n    accessTokenDuration: 10s\n    idTokenDuration: 0s\n` });
    const { config, diagnostics } = await loadText(text);

    assert.deepEqual(config?.edge?.oidc, { accessTokenDurationMs: 60_000, idTokenDurationMs: 60_000, refreshTokenDurationMs: 86_400_000 });
    assert.deepEqual(printed({ config, diagnostics }), [
      `${F}:16:26: edge.oidc.accessTokenDuration: warning: accessTokenDuration 10s is below the minimum 1m; using 1m`,
      `${F}:17:22: edge.oidc.idTokenDuration: warning: idTokenDuration 0s is below the minimum 1m; using 1m`,
    ]);
  });

  it('points at the access token lifetime when the refresh lifetime is the default one', async () => {
    const text = controllerYaml({ edge: `${EDGE}  oidc:\n    accessTokenDuration: 24h\n` });
    const { config, diagnostics } = await loadText(text);

    assert.equal(config?.edge?.oidc.refreshTokenDurationMs, 24 * 3_600_000 + 60_000);
    assert.deepEqual(printed({ config, diagnostics }), [
      `${F}:16:26: edge.oidc.accessTokenDuration: warning: refreshTokenDuration 24h must be at least 1m longer than accessTokenDuration 24h; using 24h1m`,
    ]);
  });

  it('refuses an unparsable token lifetime', async () => {
    const text = controllerYaml({ edge: `${EDGE}  oidc:\n    idTokenDuration: forever\n` });
    const result = await loadText(text);

    assert.equal(result.config, undefined);
    assert.match(printed(result)[0] ?? '', /^.*:16:22: edge\.oidc\.idTokenDuration: 'forever' is not a duration/);
  });
});

describe('edge.totp', () => {
  it('defaults the TOTP host name to the host of edge.api.address', async () => {
    const { config } = await loadText(controllerYaml());

    assert.equal(config?.edge?.totp.hostname, 'ctrl.example.com');
  });

  it('reads the TOTP lockout settings, with defaults of 5 attempts and 5 minutes, and refuses out-of-range values', async () => {
    const defaults = (await loadText(controllerYaml())).config?.edge?.totp;
    assert.deepEqual([defaults?.maxAttempts, defaults?.lockoutMs], [5, 300_000]);
    const set = await loadText(controllerYaml({ edge: `${EDGE}  totp:\n    maxAttempts: 3\n    lockoutDuration: 15m\n` }));
    assert.deepEqual([set.config?.edge?.totp.maxAttempts, set.config?.edge?.totp.lockoutMs], [3, 900_000]);
    const short = controllerYaml({ edge: `${EDGE}  totp:\n    lockoutDuration: 10s\n` });
    assert.deepEqual(printed(await loadText(short)), [`${F}:${lineOf(short, 'lockoutDuration')}:22: edge.totp.lockoutDuration: 10s must be at least 30s`]);
    const zero = await loadText(controllerYaml({ edge: `${EDGE}  totp:\n    maxAttempts: 0\n` }));
    assert.equal(zero.config, undefined);
    assert.match(printed(zero)[0] ?? '', /edge\.totp\.maxAttempts/);
  });

  it('refuses a TOTP host name with a scheme, port or path', async () => {
    for (const hostname of ['https://totp.example.com', 'totp.example.com:443', 'totp.example.com/x']) {
      const text = controllerYaml({ edge: `${EDGE}  totp:\n    hostname: ${hostname}\n` });
      const result = await loadText(text);

      assert.deepEqual(printed(result), [
        `${F}:${lineOf(text, 'hostname')}:15: edge.totp.hostname: '${hostname}' must be a bare hostname (no scheme, port or path)`,
      ]);
    }
  });
});

describe('without an edge section', () => {
  it('refuses Edge bindings, since they need the edge section', async () => {
    const result = await loadText(controllerYaml({ edge: '' }));

    assert.deepEqual(printed(result), [
      `${F}:14:18: web[0].apis[0].binding: binding 'edge-client' needs the 'edge' section, which this file does not have`,
      `${F}:15:18: web[0].apis[1].binding: binding 'edge-management' needs the 'edge' section, which this file does not have`,
    ]);
  });
});
