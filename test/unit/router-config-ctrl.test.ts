/**
 * The control-channel keys of the router file (ctrl.heartbeats, ctrl.options, ctrl.endpointsFile), the `metrics`
 * web binding, and routerTimings/endpointsFilePath, through which the router reads them (decision 0065).
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ROUTER_DEFAULTS } from '../../src/router-config/schema.js';
import { endpointsFilePath, routerTimings } from '../../src/router-config/timings.js';
import { validateRouterConfig } from '../../src/router-config/validate.js';
import { formatDiagnostic } from '../../src/shared/diagnostics.js';

/** A router file that starts: `ctrl:` is on line 3, so `ctrl.<extra>` lines begin on line 5. */
const withCtrl = (extra: string) => `v: 3
identity: { cert: c.pem, server_cert: s.pem, key: k.pem, ca: ca.pem }
ctrl:
  endpoint: tls:ctrl.example.com:6262
${extra}`;

const validate = (text: string) => validateRouterConfig(text, 'router.yml', { env: {} });
/** Every diagnostic but the consequence warnings of the sections a starting file leaves out. */
const printed = (text: string) =>
  validate(text)
    .diagnostics.filter((d) => !/^(csr|dialers|edge|link|listeners)$/.test(d.path))
    .map((d) => formatDiagnostic(d, { style: 'severity-first' }));

describe('ctrl heartbeats, options and endpoints file', () => {
  it('fills in the heartbeat, connect, reconnect and endpoints-file defaults, and routerTimings gives them in milliseconds', () => {
    const { config } = validate(withCtrl(''));

    assert.ok(config);
    assert.deepEqual(config.ctrl.heartbeats, ROUTER_DEFAULTS.heartbeats);
    assert.deepEqual(config.ctrl.options, ROUTER_DEFAULTS.ctrlOptions);
    assert.equal(config.ctrl.endpointsFile, 'endpoints.yml');
    assert.deepEqual(routerTimings(config), {
      defaultRequestTimeoutMs: 5_000,
      heartbeats: { sendIntervalMs: 10_000, checkIntervalMs: 1_000, closeUnresponsiveTimeoutMs: 30_000 },
      connectTimeoutMs: 10_000,
      reconnect: { minRetryIntervalMs: 1_000, maxRetryIntervalMs: 60_000, retryBackoffFactor: 2 },
      healthChecks: {
        ctrlPingCheck: { intervalMs: 30_000, timeoutMs: 15_000, initialDelayMs: 15_000 },
        linkCheck: { intervalMs: 5_000, initialDelayMs: 1_000, minLinks: 0 },
      },
    });
  });

  it('reads written values into routerTimings, keeping the defaults of keys left out', () => {
    const text = `${withCtrl(`  defaultRequestTimeout: 2s
  heartbeats: { sendInterval: 2s, closeUnresponsiveTimeout: 5s }
  options: { connectTimeout: 1500ms, reconnect: { minRetryInterval: 250ms, retryBackoffFactor: 1.5 } }
`)}healthChecks: { ctrlPingCheck: { interval: 1m, timeout: 3s, initialDelay: 0s }, linkCheck: { minLinks: 2 } }
`;
    const { config, diagnostics } = validate(text);

    assert.deepEqual(printed(text), [], JSON.stringify(diagnostics));
    const timings = routerTimings(config!);
    assert.equal(timings.defaultRequestTimeoutMs, 2_000);
    assert.deepEqual(timings.heartbeats, { sendIntervalMs: 2_000, checkIntervalMs: 1_000, closeUnresponsiveTimeoutMs: 5_000 });
    assert.equal(timings.connectTimeoutMs, 1_500);
    assert.deepEqual(timings.reconnect, { minRetryIntervalMs: 250, maxRetryIntervalMs: 60_000, retryBackoffFactor: 1.5 });
    assert.deepEqual(timings.healthChecks.ctrlPingCheck, { intervalMs: 60_000, timeoutMs: 3_000, initialDelayMs: 0 });
    assert.deepEqual(timings.healthChecks.linkCheck, { intervalMs: 5_000, initialDelayMs: 1_000, minLinks: 2 });
  });

  it('refuses a heartbeat or connect duration that is not one, or is zero, at its line and column', () => {
    const text = withCtrl(`  heartbeats:
    sendInterval: soon
    checkInterval: 0s
  options:
    connectTimeout: 10
`);
    assert.deepEqual(printed(text), [
      "router.yml:6:19: error: ctrl.heartbeats.sendInterval: 'soon' is not a duration (use a number with a unit: ms, s, m, h; e.g. 30s, 1h30m)",
      'router.yml:7:20: error: ctrl.heartbeats.checkInterval: 0s must be greater than 0',
      'router.yml:9:21: error: ctrl.options.connectTimeout: expected a string, got a number (10)',
    ]);
    assert.equal(validate(text).config, undefined);
  });

  it('refuses an unresponsive timeout no longer than the send interval, naming both values', () => {
    const text = withCtrl('  heartbeats:\n    sendInterval: 30s\n    closeUnresponsiveTimeout: 30s\n');

    assert.deepEqual(printed(text), [
      'router.yml:7:31: error: ctrl.heartbeats.closeUnresponsiveTimeout: closeUnresponsiveTimeout 30s must be longer than sendInterval 30s: a healthy controller would be dropped between two heartbeats',
    ]);
  });

  it('suggests the heartbeat key meant by a misspelt one', () => {
    assert.deepEqual(printed(withCtrl('  heartbeats:\n    sendIntervall: 5s\n')), [
      "router.yml:6:5: error: ctrl.heartbeats.sendIntervall: unknown key 'sendIntervall' (did you mean 'sendInterval'?)",
    ]);
  });

  it('checks the reconnect backoff as link backoffs are checked: 10ms..24h, min not above max, factor 1..100', () => {
    const text = withCtrl(`  options:
    reconnect:
      minRetryInterval: 5ms
      maxRetryInterval: 25h
      retryBackoffFactor: 0.5
`);
    assert.deepEqual(printed(text), [
      'router.yml:7:25: error: ctrl.options.reconnect.minRetryInterval: 5ms must be at least 10ms',
      'router.yml:8:25: error: ctrl.options.reconnect.maxRetryInterval: 25h must be at most 24h',
      'router.yml:9:27: error: ctrl.options.reconnect.retryBackoffFactor: must be >= 1',
    ]);
    assert.deepEqual(printed(withCtrl('  options:\n    reconnect: { minRetryInterval: 2m, maxRetryInterval: 1m }\n')), [
      'router.yml:6:58: error: ctrl.options.reconnect.maxRetryInterval: minRetryInterval 2m is above maxRetryInterval 1m',
    ]);
  });

  it('warns about a channel option svc does not use, naming the known ones, and accepts the file without it', () => {
    const text = withCtrl('  options:\n    maxQueuedConnects: 50\n    connectTimeout: 3s\n');
    const { config } = validate(text);

    assert.deepEqual(printed(text), [
      "router.yml:6:5: warning: ctrl.options.maxQueuedConnects: option 'maxQueuedConnects' is not used by svc and is ignored; the known options are connectTimeout, reconnect",
    ]);
    assert.equal(routerTimings(config!).connectTimeoutMs, 3_000);
    assert.deepEqual(Object.keys(config!.ctrl.options ?? {}).sort(), ['connectTimeout', 'reconnect'], 'the effective configuration holds only what is used');
  });

  it('refuses an endpoints file that names a folder', () => {
    assert.deepEqual(printed(withCtrl('  endpointsFile: /var/lib/router/\n')), [
      "router.yml:5:18: error: ctrl.endpointsFile: '/var/lib/router/' names a folder; give the file the router writes, e.g. endpoints.yml",
    ]);
  });

  it('places the endpoints file beside the config file unless an absolute path is given', () => {
    const relative = validate(withCtrl('')).config!;
    const elsewhere = validate(withCtrl('  endpointsFile: state/ctrls.yml\n')).config!;
    const absolute = validate(withCtrl('  endpointsFile: /var/lib/router/endpoints.yml\n')).config!;

    assert.equal(endpointsFilePath(relative, '/etc/svc/router.yml'), '/etc/svc/endpoints.yml');
    assert.equal(endpointsFilePath(elsewhere, '/etc/svc/router.yml'), '/etc/svc/state/ctrls.yml');
    assert.equal(endpointsFilePath(absolute, '/etc/svc/router.yml'), '/var/lib/router/endpoints.yml');
  });
});

describe('router web bindings', () => {
  const web = (apis: string) => `${withCtrl('')}web:
  - name: ops
    bindPoints: [{ interface: 127.0.0.1:8081, address: 127.0.0.1:8081 }]
    apis:
${apis}`;

  it('accepts metrics beside health-checks', () => {
    assert.deepEqual(printed(web('      - binding: health-checks\n      - binding: metrics\n')), []);
  });

  it('refuses an unknown binding with the closest router API, and options on metrics', () => {
    assert.deepEqual(printed(web('      - binding: metric\n      - binding: metrics\n        options: { path: /m }\n')), [
      "router.yml:9:18: error: web[0].apis[0].binding: binding 'metric' is not served by a router (did you mean 'metrics'?); router APIs are health-checks, metrics",
      "router.yml:11:9: error: web[0].apis[1].options: 'metrics' takes no options",
    ]);
  });
});
