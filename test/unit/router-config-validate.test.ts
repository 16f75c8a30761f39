/**
 * validateRouterConfig as a library: the effective configuration with every default, the either-or keys,
 * the consequence warnings, and the value parsers at their edges.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONSEQUENCES, NO_VALID_SAN } from '../../src/router-config/consequences.js';
import { addressProblem, advertiseProblem, cidrProblem, sanProblem, servicePortProblem } from '../../src/router-config/rules/values.js';
import { ROUTER_DEFAULTS } from '../../src/router-config/schema.js';
import { validateRouterConfig } from '../../src/router-config/validate.js';

const START = `v: 3
identity: { cert: c.pem, server_cert: s.pem, key: k.pem, ca: ca.pem }
ctrl:
  endpoint: tls:ctrl.example.com:6262
`;
const STANDARD = `${START}csr: { sans: { dns: [router.example.com] } }
edge: {}
dialers: [{ binding: transport }]
listeners: [{ binding: edge, address: "tls:0.0.0.0:3022", advertise: "router.example.com:3022" }]
`;

const validate = (text: string, env: Record<string, string> = {}) => validateRouterConfig(text, 'router.yml', { env });
const messages = (text: string) => validate(text).diagnostics.map((d) => `${d.severity} ${d.path}: ${d.message}`);

describe('the effective configuration', () => {
  it('fills in every default of forwarder, healthChecks, metrics and ctrl', () => {
    const { config } = validate(START);

    assert.ok(config);
    assert.deepEqual(config.forwarder, ROUTER_DEFAULTS.forwarder);
    assert.deepEqual(config.healthChecks, { ctrlPingCheck: ROUTER_DEFAULTS.ctrlPingCheck, linkCheck: ROUTER_DEFAULTS.linkCheck });
    assert.deepEqual(config.metrics, ROUTER_DEFAULTS.metrics);
    assert.equal(config.ctrl.defaultRequestTimeout, '5s');
  });

  it('gives link listeners and dialers their groups, split and both backoff policies', () => {
    const text = `${STANDARD}link:
  listeners: [{ binding: transport, bind: "tls:0.0.0.0:4022", advertise: "router.example.com:4022" }]
  dialers: [{ binding: transport }]
`;
    const { config, diagnostics } = validate(text);

    assert.deepEqual(diagnostics, []);
    assert.deepEqual(config?.link?.listeners?.[0]?.groups, ['default']);
    assert.deepEqual(config?.link?.dialers?.[0], {
      binding: 'transport',
      split: true,
      groups: ['default'],
      healthyDialBackoff: { minRetryInterval: '5s', maxRetryInterval: '5m', retryBackoffFactor: 1.5 },
      unhealthyDialBackoff: { minRetryInterval: '1m', maxRetryInterval: '1h', retryBackoffFactor: 10 },
    });
  });

  it('gives a tunnel listener mode host and a memory profile its 15s interval', () => {
    const text = `${STANDARD.replace('listeners: [', 'listeners: [{ binding: tunnel, bind: "tcp:127.0.0.1:1", advertise: "h:1" }, ')}link: {}
profile: { memory: { path: /tmp/m } }
`;
    const { config, diagnostics } = validate(text);

    assert.deepEqual(diagnostics, []);
    assert.deepEqual(config?.listeners?.[0]?.options, { mode: 'host' });
    assert.deepEqual(config?.profile?.memory, { path: '/tmp/m', intervalMs: 15000 });
  });

  it('drops ctrl.endpoints when ctrl.endpoint is also given, with a warning', () => {
    const { config, diagnostics } = validate(`${STANDARD.replace('6262\n', '6262\n  endpoints: ["tls:b.example.com:1"]\n')}link: {}\n`);

    assert.deepEqual(diagnostics.map((d) => [d.severity, d.path, d.line]), [['warning', 'ctrl.endpoints', 5]]);
    assert.equal(config?.ctrl.endpoints, undefined);
    assert.equal(config?.ctrl.endpoint, 'tls:ctrl.example.com:6262');
  });
});

describe('what a router can start with', () => {
  it('requires v, identity and ctrl', () => {
    assert.deepEqual(
      messages('csr: {}\n').filter((m) => m.startsWith('error')),
      ['error v: missing required key', 'error identity: missing required key', 'error ctrl: missing required key'],
    );
  });

  it('warns, in the spec words, what each missing section costs', () => {
    assert.deepEqual(messages(START), [
      `warning csr: ${CONSEQUENCES.csr}`,
      `warning dialers: ${CONSEQUENCES.dialers}`,
      `warning edge: ${CONSEQUENCES.edge}`,
      `warning link: ${CONSEQUENCES.link}`,
      `warning listeners: ${CONSEQUENCES.listeners}`,
    ]);
  });

  it('warns that a csr without a valid SAN cannot accept SDK or router connections', () => {
    assert.deepEqual(messages(`${STANDARD.replace('{ sans: { dns: [router.example.com] } }', '{ organization: x }')}link: {}\n`), [
      `warning csr: ${NO_VALID_SAN}`,
    ]);
  });

  it('resolves ${VAR} from the environment it is handed', () => {
    const { config } = validate(START.replace('ctrl.example.com', '${CTRL}'), { CTRL: 'c.example.com' });

    assert.equal(config?.ctrl.endpoint, 'tls:c.example.com:6262');
  });
});

describe('value syntax', () => {
  it('accepts every registered protocol and rejects others', () => {
    for (const protocol of ['tls', 'dtls', 'tcp', 'ws', 'wss', 'udp']) assert.equal(addressProblem(`${protocol}:h.example.com:1`), undefined);
    assert.match(addressProblem('http:h:1') ?? '', /unknown protocol 'http'/);
  });

  it('takes ports 1 and 65535 but not 0 or 65536', () => {
    assert.equal(advertiseProblem('h:1'), undefined);
    assert.equal(advertiseProblem('h:65535'), undefined);
    assert.match(advertiseProblem('h:0') ?? '', /port '0'/);
    assert.match(advertiseProblem('h:65536') ?? '', /port '65536'/);
    assert.equal(servicePortProblem('svc:65535'), undefined);
  });

  it('takes CIDR prefixes up to 32 bits for IPv4 and 128 for IPv6', () => {
    assert.equal(cidrProblem('10.0.0.0/32'), undefined);
    assert.equal(cidrProblem('::/128'), undefined);
    assert.match(cidrProblem('10.0.0.0') ?? '', /not a CIDR/);
  });

  it('checks each SAN kind', () => {
    assert.equal(sanProblem('dns', '*.example.com'), undefined);
    assert.equal(sanProblem('ip', 'fd00::1'), undefined);
    assert.equal(sanProblem('uri', 'spiffe://td/router'), undefined);
    assert.equal(sanProblem('email', 'ops@example.com'), undefined);
    assert.ok(sanProblem('email', 'ops@'));
  });
});
