/**
 * Address syntax in the controller config: `host:port` and the `redirectURIs` patterns of edge-oidc.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHostPort, sameHostPort } from '../../src/config/host-port.js';
import { parseRedirectUri } from '../../src/config/redirect-uri.js';

describe('host:port', () => {
  it('accepts DNS names, IPv4 addresses and bracketed IPv6 addresses', () => {
    assert.deepEqual(parseHostPort('ctrl.example.com:443'), { ok: true, value: { host: 'ctrl.example.com', port: 443, text: 'ctrl.example.com:443' } });
    assert.deepEqual(parseHostPort('10.0.0.1:1'), { ok: true, value: { host: '10.0.0.1', port: 1, text: '10.0.0.1:1' } });
    assert.deepEqual(parseHostPort('[fe80::1]:65535'), { ok: true, value: { host: 'fe80::1', port: 65535, text: '[fe80::1]:65535' } });
  });

  it('refuses missing hosts, bad ports, unbracketed IPv6 and malformed names', () => {
    for (const text of [':1280', 'host:0', 'host:65536', 'host:12a', 'host', '::1:1280', '[nope]:1', '300.1.1.1:80', '-bad-.example:80', 'a b:80']) {
      assert.equal(parseHostPort(text).ok, false, text);
    }
  });

  it('treats two spellings of one IPv6 address, and host name case, as the same', () => {
    const a = parseHostPort('[::1]:80');
    const b = parseHostPort('[0:0::1]:80');
    const c = parseHostPort('Ctrl.Example.com:80');
    const d = parseHostPort('ctrl.example.com:80');

    assert.ok(a.ok && b.ok && c.ok && d.ok);
    assert.equal(sameHostPort(a.value, b.value), true);
    assert.equal(sameHostPort(c.value, d.value), true);
  });
});

describe('redirect URI patterns', () => {
  it('parses scheme, host, optional port or *, and optional path', () => {
    assert.deepEqual(parseRedirectUri('svc://auth/callback'), {
      ok: true,
      value: { text: 'svc://auth/callback', scheme: 'svc', host: 'auth', port: undefined, path: '/callback' },
    });
    assert.deepEqual(parseRedirectUri('http://localhost:*'), {
      ok: true,
      value: { text: 'http://localhost:*', scheme: 'http', host: 'localhost', port: '*', path: '' },
    });
  });

  it('refuses * outside the port, missing schemes, bad ports, queries and fragments', () => {
    for (const text of ['https://*:443/cb', 'https://host:443/*', 'host/cb', 'https://host:99999/cb', 'https://host/cb?x=1', 'https://host/cb#f', 'https://:80/cb']) {
      assert.equal(parseRedirectUri(text).ok, false, text);
    }
  });
});
