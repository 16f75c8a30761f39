/** @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_REDIRECT_PATTERNS } from '../../src/config/redirect-uri.js';
import { postLogoutUriAllowed, redirectUriAllowed } from '../../src/policy/redirect-uri-match.js';

describe('redirect URI matching', () => {
  it('accepts the default loopback callbacks on any port and the app scheme', () => {
    for (const uri of ['http://127.0.0.1:53123/auth/callback', 'https://localhost:8443/auth/callback', 'svc://auth/callback']) {
      assert.equal(redirectUriAllowed(uri, DEFAULT_REDIRECT_PATTERNS), true, uri);
    }
  });

  it('refuses other hosts, paths, queries, fragments and userinfo tricks', () => {
    for (const uri of ['http://example.com:1/auth/callback', 'http://127.0.0.1:1/auth/other', 'http://127.0.0.1:1/auth/callback?x=1', 'http://127.0.0.1:1/auth/callback#f', 'http://127.0.0.1@evil.com/auth/callback', 'http://127.0.0.1:99999/auth/callback', '']) {
      assert.equal(redirectUriAllowed(uri, DEFAULT_REDIRECT_PATTERNS), false, uri);
    }
  });

  it('lets post-logout redirects use any path on a registered host and port', () => {
    assert.equal(postLogoutUriAllowed('http://127.0.0.1:1/auth/logout', DEFAULT_REDIRECT_PATTERNS), true);
    assert.equal(postLogoutUriAllowed('https://evil.example.com/auth/logout', DEFAULT_REDIRECT_PATTERNS), false);
  });
});
