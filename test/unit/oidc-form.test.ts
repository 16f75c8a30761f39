/**
 * Form bodies of the OIDC endpoints (src/oidc/params.ts): parsed in one pass, a repeated name kept as a list for
 * readParams to refuse, and a refused name (`__proto__`, `constructor`) an invalid_request naming it, before it could
 * be used as a key.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isOAuthError } from '../../src/errors/oauth-error.js';
import { MAX_TOKEN_PARAM, parseForm, readParams } from '../../src/oidc/params.js';
import { FORBIDDEN_KEYS } from '../../src/shared/safe-json.js';

describe('an OIDC form body', () => {
  it('gives each name its decoded value', () => {
    const form = parseForm('grant_type=authorization_code&code=a%2Bb&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb&scope=openid+offline_access', FORBIDDEN_KEYS);
    assert.deepEqual({ ...form }, { grant_type: 'authorization_code', code: 'a+b', redirect_uri: 'http://127.0.0.1:9/cb', scope: 'openid offline_access' });
  });

  it('keeps a repeated name as a list, which readParams refuses', () => {
    const form = parseForm('code=a&code=b&code=c', FORBIDDEN_KEYS);
    assert.deepEqual(form.code, ['a', 'b', 'c']);
    assert.throws(() => readParams(form, MAX_TOKEN_PARAM), (error: unknown) => isOAuthError(error) && error.error === 'invalid_request' && /parameter code must be given once/.test(error.message));
  });

  for (const name of FORBIDDEN_KEYS) {
    it(`refuses ${name} as a name wherever it stands, naming it, and sets no prototype`, () => {
      for (const body of [`${name}=x`, `code=a&${name}=%7B%22isAdmin%22%3Atrue%7D`, `${'a=1&'.repeat(1000)}${name}=x`]) {
        assert.throws(
          () => parseForm(body, FORBIDDEN_KEYS),
          (error: unknown) => isOAuthError(error) && error.error === 'invalid_request' && error.message === `the parameter name ${name} is not accepted`,
        );
      }
      assert.equal(({} as { isAdmin?: unknown }).isAdmin, undefined);
    });
  }

  it('takes any name when nothing is refused', () => {
    assert.equal(parseForm('constructor=x').constructor, 'x');
  });
});
