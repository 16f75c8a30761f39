/**
 * The `web` listeners of the controller config: bindings and their options, listener-wide rules, TLS and
 * timeouts, and OIDC auto-binding (spec "Web listener rules").
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiBinding, WebListener } from '../../src/config/types.js';
import { CONFIG_FILE, EDGE, WEB, controllerYaml, loadText, printed } from '../helpers/config-fixture.js';

const F = CONFIG_FILE;

/** A listener block (under `web:`) with the given name, interface, address and bindings. */
function listener(name: string, listen: string, address: string, bindings: string[], extra = ''): string {
  const apis = bindings.map((b) => `      - binding: ${b}\n`).join('');
  return `  - name: ${name}\n    bindPoints:\n      - interface: ${listen}\n        address: ${address}\n    apis:\n${apis}${extra}`;
}

function bindingsOf(l: WebListener | undefined): string[] {
  return (l?.apis ?? []).map((api) => (api.binding === 'edge-oidc' && api.auto ? 'edge-oidc (auto)' : api.binding));
}

function oidcOf(l: WebListener | undefined): Extract<ApiBinding, { binding: 'edge-oidc' }> | undefined {
  return l?.apis.find((api): api is Extract<ApiBinding, { binding: 'edge-oidc' }> => api.binding === 'edge-oidc');
}

describe('bindings', () => {
  it('suggests the closest binding name for an unknown one', async () => {
    const result = await loadText(controllerYaml({ web: WEB.replace('edge-management', 'edge-managment') }));

    assert.deepEqual(printed(result), [
      `${F}:22:18: web[0].apis[1].binding: unknown binding 'edge-managment' (did you mean 'edge-management'?); expected one of edge-client, edge-management, edge-oidc, metrics`,
    ]);
  });

  it('says which known bindings this controller does not serve', async () => {
    for (const name of ['fabric', 'health-checks', 'zac']) {
      const result = await loadText(controllerYaml({ web: WEB.replace('edge-management', name) }));

      assert.deepEqual(printed(result), [`${F}:22:18: web[0].apis[1].binding: binding '${name}' is not supported by this controller`]);
    }
  });

  it('refuses the same binding twice on one listener', async () => {
    const result = await loadText(controllerYaml({ web: WEB.replace('edge-management', 'edge-client') }));

    assert.deepEqual(printed(result), [
      `${F}:22:18: web[0].apis[1].binding: binding 'edge-client' is listed twice on this listener (first at web[0].apis[0])`,
    ]);
  });

  it('refuses options on edge-client with an unknown-key error', async () => {
    const web = WEB.replace('      - binding: edge-client\n', '      - binding: edge-client\n        options:\n          redirectURIs: []\n');
    const result = await loadText(controllerYaml({ web }));

    assert.deepEqual(printed(result), [`${F}:23:11: web[0].apis[0].options.redirectURIs: unknown key 'redirectURIs'`]);
  });

  it('parses edge-oidc redirect URIs, with * allowed as the port', async () => {
    const extra = '        options:\n          redirectURIs: ["myapp://cb", "http://[::1]:*/cb", "https://app.example.com:8443/a/b"]\n';
    const web = `${WEB}${extra.replace(/^/, '      - binding: edge-oidc\n')}`;
    const { config, diagnostics } = await loadText(controllerYaml({ web }));

    assert.deepEqual(diagnostics, []);
    assert.deepEqual(oidcOf(config?.web[0])?.options.redirectURIs, [
      { text: 'myapp://cb', scheme: 'myapp', host: 'cb', port: undefined, path: '' },
      { text: 'http://[::1]:*/cb', scheme: 'http', host: '::1', port: '*', path: '/cb' },
      { text: 'https://app.example.com:8443/a/b', scheme: 'https', host: 'app.example.com', port: 8443, path: '/a/b' },
    ]);
    assert.equal(oidcOf(config?.web[0])?.auto, false);
  });

  it('refuses * anywhere but the port of a redirect URI, naming the index', async () => {
    const extra = '      - binding: edge-oidc\n        options:\n          redirectURIs:\n            - https://ok.example.com/cb\n            - https://*.example.com/cb\n            - http://localhost:*/cb/*\n';
    const result = await loadText(controllerYaml({ web: `${WEB}${extra}` }));

    assert.deepEqual(printed(result), [
      `${F}:27:15: web[0].apis[2].options.redirectURIs[1]: 'https://*.example.com/cb': '*' is allowed only in the port position`,
      `${F}:28:15: web[0].apis[2].options.redirectURIs[2]: 'http://localhost:*/cb/*': '*' is allowed only in the port position`,
    ]);
  });

  it('gives an explicit edge-oidc binding without redirectURIs the localhost defaults', async () => {
    const { config } = await loadText(controllerYaml({ web: `${WEB}      - binding: edge-oidc\n` }));

    assert.deepEqual(oidcOf(config?.web[0])?.options.redirectURIs.map((uri) => uri.text), [
      'svc://auth/callback',
      'https://127.0.0.1:*/auth/callback',
      'http://127.0.0.1:*/auth/callback',
      'https://localhost:*/auth/callback',
      'http://localhost:*/auth/callback',
    ]);
  });
});

describe('listeners', () => {
  it('refuses two listeners with the same name', async () => {
    const web = `web:\n${listener('a', '0.0.0.0:1280', 'ctrl.example.com:1280', ['edge-client'])}${listener('a', '0.0.0.0:1281', 'ctrl.example.com:1281', ['edge-management'])}`;
    const result = await loadText(controllerYaml({ web }));

    assert.deepEqual(printed(result), [`${F}:22:11: web[1].name: listener name 'a' is already used by web[0]`]);
  });

  it('refuses two bind points on the same interface, across listeners', async () => {
    const web = `web:\n${listener('a', '0.0.0.0:1280', 'ctrl.example.com:1280', ['edge-client'])}${listener('b', '0.0.0.0:1280', 'mgmt.example.com:1280', ['edge-management'])}`;
    const result = await loadText(controllerYaml({ web }));

    assert.deepEqual(printed(result), [`${F}:24:20: web[1].bindPoints[0].interface: interface '0.0.0.0:1280' is already used by web[0].bindPoints[0]`]);
  });

  it('refuses malformed bind point addresses', async () => {
    const web = WEB.replace('0.0.0.0:1280', '::1:1280').replace('address: ctrl.example.com:1280', 'address: ctrl.example.com');
    const result = await loadText(controllerYaml({ web }));

    assert.deepEqual(printed(result), [
      `${F}:18:20: web[0].bindPoints[0].interface: '::1:1280' is not a host:port; write IPv6 hosts in brackets, e.g. [::1]:1280`,
      `${F}:19:18: web[0].bindPoints[0].address: 'ctrl.example.com' is not a host:port`,
    ]);
  });

  it('requires at least one bind point and one API', async () => {
    const web = 'web:\n  - name: empty\n    bindPoints: []\n    apis: []\n';
    const result = await loadText(controllerYaml({ web }));

    assert.deepEqual(printed(result), [
      `${F}:17:17: web[0].bindPoints: must have at least 1 item(s)`,
      `${F}:18:11: web[0].apis: must have at least 1 item(s)`,
    ]);
  });

  it('maps TLS version names and refuses a minimum above the maximum', async () => {
    const ok = await loadText(controllerYaml({ web: `${WEB}    options:\n      maxTLSVersion: TLS1.2\n` }));
    const bad = await loadText(controllerYaml({ web: `${WEB}    options:\n      minTLSVersion: TLS1.3\n      maxTLSVersion: TLS1.2\n` }));

    assert.equal(ok.config?.web[0]?.options.minTLSVersion, 'TLSv1.2');
    assert.equal(ok.config?.web[0]?.options.maxTLSVersion, 'TLSv1.2');
    assert.deepEqual(printed(bad), [`${F}:24:22: web[0].options.minTLSVersion: minTLSVersion TLS1.3 is above maxTLSVersion TLS1.2`]);
  });

  it('refuses an unknown TLS version with a suggestion, and a zero timeout', async () => {
    const result = await loadText(controllerYaml({ web: `${WEB}    options:\n      minTLSVersion: TLS1.0\n      writeTimeout: 0s\n` }));

    assert.deepEqual(printed(result), [
      `${F}:24:22: web[0].options.minTLSVersion: must be one of 'TLS1.2', 'TLS1.3' (did you mean 'TLS1.2'?)`,
      `${F}:25:21: web[0].options.writeTimeout: 0s must be greater than 0`,
    ]);
  });
});

describe('listener deadlines and connection caps', () => {
  const options = (lines: string) => controllerYaml({ web: `${WEB}    options:\n${lines}` });

  it('reads the handshake, header and request deadlines and the connection caps', async () => {
    const { config } = await loadText(options('      handshakeTimeout: 2s\n      headerTimeout: 3s\n      requestTimeout: 1m\n      maxConnections: 100\n      maxConnectionsPerClient: 10\n'));
    const o = config?.web[0]?.options;
    assert.deepEqual([o?.handshakeTimeoutMs, o?.headerTimeoutMs, o?.requestTimeoutMs, o?.maxConnections, o?.maxConnectionsPerClient], [2000, 3000, 60_000, 100, 10]);
  });

  it('refuses deadlines under 100ms, a header deadline past the request deadline, and a per-client cap over the total', async () => {
    const short = await loadText(options('      handshakeTimeout: 50ms\n'));
    assert.deepEqual(printed(short), [`${F}:24:25: web[0].options.handshakeTimeout: 50ms must be at least 100ms`]);
    const order = await loadText(options('      headerTimeout: 40s\n'));
    assert.deepEqual(printed(order), [`${F}:24:22: web[0].options.headerTimeout: headerTimeout 40s is longer than requestTimeout 30s; the headers are part of the request`]);
    const caps = await loadText(options('      maxConnections: 10\n      maxConnectionsPerClient: 20\n'));
    assert.deepEqual(printed(caps), [`${F}:25:32: web[0].options.maxConnectionsPerClient: maxConnectionsPerClient 20 is above maxConnections 10`]);
    for (const bad of ['maxConnections: 0', 'maxConnectionsPerClient: -1', 'requestTimeout: soon']) {
      const result = await loadText(options(`      ${bad}\n`));
      assert.equal(result.config, undefined, bad);
      assert.match(printed(result)[0] ?? '', new RegExp(`web\\[0\\]\\.options\\.${bad.split(':')[0]}`), bad);
    }
  });
});

describe('OIDC auto-binding', () => {
  it('adds edge-oidc to every listener hosting edge-client by default', async () => {
    const web = `web:\n${listener('a', '0.0.0.0:1280', 'ctrl.example.com:1280', ['edge-client'])}${listener('b', '0.0.0.0:1281', 'ctrl.example.com:1281', ['edge-management'])}${listener('c', '0.0.0.0:1282', 'ctrl.example.com:1282', ['edge-client'])}`;
    const { config } = await loadText(controllerYaml({ web }));

    assert.deepEqual(config?.web.map(bindingsOf), [['edge-client', 'edge-oidc (auto)'], ['edge-management'], ['edge-client', 'edge-oidc (auto)']]);
    assert.equal(oidcOf(config?.web[0])?.options.redirectURIs.length, 5);
  });

  it('adds nothing when edge.api.disableOidcAutoBinding is true', async () => {
    const edge = EDGE.replace('api:\n', 'api:\n    disableOidcAutoBinding: true\n');
    const { config } = await loadText(controllerYaml({ edge }));

    assert.deepEqual(config?.web.map(bindingsOf), [['edge-client', 'edge-management']]);
  });

  it('adds nothing when some listener lists edge-oidc itself', async () => {
    const web = `web:\n${listener('a', '0.0.0.0:1280', 'ctrl.example.com:1280', ['edge-client'])}${listener('b', '0.0.0.0:1281', 'ctrl.example.com:1281', ['edge-client', 'edge-oidc'])}`;
    const { config } = await loadText(controllerYaml({ web }));

    assert.deepEqual(config?.web.map(bindingsOf), [['edge-client'], ['edge-client', 'edge-oidc']]);
  });

  it('accepts a listener that hosts only edge-oidc on its own bind point', async () => {
    const web = `web:\n${listener('api', '0.0.0.0:1280', 'ctrl.example.com:1280', ['edge-client', 'edge-management'])}${listener('oidc', '0.0.0.0:8443', 'auth.example.com:8443', ['edge-oidc'])}`;
    const { config, diagnostics } = await loadText(controllerYaml({ web }));

    assert.deepEqual(diagnostics, []);
    assert.deepEqual(config?.web.map(bindingsOf), [['edge-client', 'edge-management'], ['edge-oidc']]);
  });

  it('does not accept an edge.api.address served only by an edge-oidc listener', async () => {
    const web = `web:\n${listener('api', '0.0.0.0:1280', 'api.example.com:1280', ['edge-client'])}${listener('oidc', '0.0.0.0:8443', 'ctrl.example.com:1280', ['edge-oidc'])}`;
    const result = await loadText(controllerYaml({ web }));

    assert.match(printed(result)[0] ?? '', /edge\.api\.address: 'ctrl\.example\.com:1280' must equal .* \(candidates: api\.example\.com:1280\)$/);
  });
});
