/**
 * `edge.externalJwt` of the controller config: the JWKS fetch settings of external JWT signers, their defaults, and
 * the diagnostics `svc controller check` prints for wrong values.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONFIG_FILE, EDGE, controllerYaml, loadText, printed } from '../helpers/config-fixture.js';

const F = CONFIG_FILE;
const withExternalJwt = (lines: string) => controllerYaml({ edge: `${EDGE}  externalJwt:\n${lines}` });

describe('edge.externalJwt', () => {
  it('defaults to https only, private addresses allowed, 5s timeout, 256 KiB, 5 redirects, 30s refresh interval', async () => {
    const { config } = await loadText(controllerYaml());
    assert.deepEqual(config?.edge?.externalJwt, {
      allowHttpJwks: false,
      refusePrivateAddresses: false,
      jwksTimeoutMs: 5000,
      jwksMaxBytes: 262_144,
      jwksMaxRedirects: 5,
      jwksRefreshIntervalMs: 30_000,
    });
  });

  it('reads every setting', async () => {
    const text = withExternalJwt(
      '    allowHttpJwks: true\n    refusePrivateAddresses: true\n    jwksTimeout: 2s\n    jwksMaxBytes: 4096\n    jwksMaxRedirects: 0\n    jwksRefreshInterval: 1m\n',
    );
    const { config, diagnostics } = await loadText(text);
    assert.deepEqual(diagnostics, []);
    assert.deepEqual(config?.edge?.externalJwt, {
      allowHttpJwks: true,
      refusePrivateAddresses: true,
      jwksTimeoutMs: 2000,
      jwksMaxBytes: 4096,
      jwksMaxRedirects: 0,
      jwksRefreshIntervalMs: 60_000,
    });
  });

  it('refuses a timeout below 100ms and a refresh interval below 1s or not a duration', async () => {
    const result = await loadText(withExternalJwt('    jwksTimeout: 50ms\n    jwksRefreshInterval: 500ms\n'));
    assert.equal(result.config, undefined);
    assert.deepEqual(printed(result), [
      `${F}:16:18: edge.externalJwt.jwksTimeout: 50ms must be at least 100ms`,
      `${F}:17:26: edge.externalJwt.jwksRefreshInterval: 500ms must be at least 1s`,
    ]);
    assert.deepEqual(printed(await loadText(withExternalJwt('    jwksRefreshInterval: soon\n'))), [
      `${F}:16:26: edge.externalJwt.jwksRefreshInterval: 'soon' is not a duration (use a number with a unit: ms, s, m, h; e.g. 30s, 1h30m)`,
    ]);
  });

  it('refuses out-of-range limits and unknown keys with a did-you-mean', async () => {
    const result = await loadText(withExternalJwt('    jwksMaxBytes: 100\n    jwksMaxRedirects: 11\n    allowHttpJwk: true\n'));
    assert.deepEqual(printed(result), [
      `${F}:16:19: edge.externalJwt.jwksMaxBytes: must be >= 1024`,
      `${F}:17:23: edge.externalJwt.jwksMaxRedirects: must be <= 10`,
      `${F}:18:5: edge.externalJwt.allowHttpJwk: unknown key 'allowHttpJwk' (did you mean 'allowHttpJwks'?)`,
    ]);
  });
});
