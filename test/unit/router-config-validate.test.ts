/**
 * validateRouterConfig as a library: the effective configuration with every default, the either-or keys,
 * the consequence warnings, the forms router files are written in in the field, and the value parsers at
 * their edges.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONSEQUENCES, NO_VALID_SAN } from '../../src/router-config/consequences.js';
import {
  addressProblem,
  advertiseProblem,
  cidrProblem,
  linkAdvertiseProblem,
  parseLinkAdvertise,
  sanProblem,
  servicePortProblem,
} from '../../src/router-config/rules/values.js';
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
/** STANDARD with its listeners replaced by `listeners`, block YAML whose first item is on line 9, and an empty link. */
const withListeners = (listeners: string) => `${STANDARD.replace(/^listeners: .*\n/m, `listeners:\n${listeners}`)}link: {}\n`;
/** STANDARD with one link listener advertising `advertise`, the value's quote on line 10, column 74. */
const withLinkAdvertise = (advertise: string) =>
  `${STANDARD}link:\n  listeners: [{ binding: transport, bind: "tls:0.0.0.0:4022", advertise: "${advertise}" }]\n`;

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

describe('router files as they are written in the field', () => {
  it('accepts a tunnel listener with no listen address and no advertise, in mode host by default', () => {
    const { config, diagnostics } = validate(withListeners('  - binding: tunnel\n'));

    assert.deepEqual(diagnostics, []);
    assert.deepEqual(config?.listeners?.[0], { binding: 'tunnel', options: { mode: 'host' } });
  });

  it('accepts a tunnel listener in tproxy mode with only its options', () => {
    const { config, diagnostics } = validate(withListeners('  - binding: tunnel\n    options: { mode: tproxy, resolver: "udp://127.0.0.1:53" }\n'));

    assert.deepEqual(diagnostics, []);
    assert.deepEqual(config?.listeners?.[0]?.options, { mode: 'tproxy', resolver: 'udp://127.0.0.1:53' });
  });

  it('still checks the listen address and advertise a tunnel listener does give', () => {
    const text = withListeners('  - binding: tunnel\n    bind: "tcp:127.0.0.1"\n    advertise: "127.0.0.1"\n');

    assert.deepEqual(messages(text), [
      "error listeners[0].bind: 'tcp:127.0.0.1': '127.0.0.1' is not <host>:<port>",
      "error listeners[0].advertise: '127.0.0.1' is not <host>:<port>",
    ]);
  });

  it('still requires a listen address and advertise of an edge listener, at the listener', () => {
    const { config, diagnostics } = validate(withListeners('  - binding: edge\n    options: {}\n'));

    assert.equal(config, undefined);
    assert.deepEqual(
      diagnostics.map((d) => [d.line, d.column, d.path, d.message]),
      [
        [9, 3, 'listeners[0].advertise', 'missing required key'],
        [9, 3, 'listeners[0].bind', 'missing listen address: give bind or address'],
      ],
    );
  });

  it('accepts a link listener advertising tls:<host>:<port> and holds <host>:<port> in the effective configuration', () => {
    for (const [written, effective] of [
      ['tls:router.example.com:4022', 'router.example.com:4022'],
      ['router.example.com:4022', 'router.example.com:4022'],
      ['tls:[fd00::1]:4022', '[fd00::1]:4022'],
    ] as const) {
      const { config, diagnostics } = validate(withLinkAdvertise(written));

      assert.deepEqual(diagnostics, [], written);
      assert.equal(config?.link?.listeners?.[0]?.advertise, effective, written);
    }
  });

  it('refuses a link listener advertising any other protocol, naming the key and where it is', () => {
    for (const protocol of ['tcp', 'udp', 'dtls', 'ws', 'wss']) {
      const { config, diagnostics } = validate(withLinkAdvertise(`${protocol}:router.example.com:4022`));

      assert.equal(config, undefined);
      assert.deepEqual(
        diagnostics.map((d) => [d.line, d.column, d.path, d.message]),
        [
          [
            10,
            74,
            'link.listeners[0].advertise',
            `'${protocol}:router.example.com:4022': protocol '${protocol}' is not accepted here; ` +
              "a link listener advertises tls:<host>:<port> or <host>:<port> (did you mean 'tls:router.example.com:4022'?)",
          ],
        ],
      );
    }
  });

  it('keeps the advertise of other listeners without a protocol', () => {
    assert.deepEqual(messages(withListeners('  - { binding: edge, address: "tls:0.0.0.0:3022", advertise: "tls:router.example.com:3022" }\n')), [
      "error listeners[0].advertise: 'tls:router.example.com:3022' must be <host>:<port> without a protocol",
    ]);
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

  it('reads a link advertise as <host>:<port> or tls:<host>:<port> and nothing else', () => {
    assert.deepEqual(parseLinkAdvertise('tls:h.example.com:65535'), { ok: true, value: 'h.example.com:65535' });
    assert.deepEqual(parseLinkAdvertise('h.example.com:1'), { ok: true, value: 'h.example.com:1' });
    assert.equal(linkAdvertiseProblem('tls:h.example.com'), "'tls:h.example.com': 'h.example.com' is not <host>:<port>");
    assert.match(linkAdvertiseProblem('tls:h.example.com:0') ?? '', /port '0' must be a number from 1 to 65535/);
    assert.match(linkAdvertiseProblem('tls:h.example.com:65536') ?? '', /port '65536' must be a number from 1 to 65535/);
    assert.equal(linkAdvertiseProblem('tls:4022'), "'tls:4022': '4022' is not <host>:<port>");
    assert.equal(linkAdvertiseProblem('tls:'), "'tls:': '' is not <host>:<port>");
    assert.match(linkAdvertiseProblem('udp:h.example.com') ?? '', /^'udp:h\.example\.com': protocol 'udp' is not accepted here; [^(]*$/);
    assert.match(linkAdvertiseProblem('TLS:h.example.com:1') ?? '', /unknown protocol 'TLS' \(did you mean 'tls'\?\)/);
    assert.match(linkAdvertiseProblem('tls://h.example.com:1') ?? '', /a URL is not accepted here; .*\(did you mean 'tls:h\.example\.com:1'\?\)$/);
    assert.match(linkAdvertiseProblem('h.example.com') ?? '', /^'h\.example\.com' is not <host>:<port>$/);
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
