/**
 * Form bodies of the OIDC endpoints (src/oidc/params.ts): parsed in one pass, a repeated name kept as a list for
 * readParams to refuse, and a refused name (`__proto__`, `constructor`) an invalid_request naming it, before it could
 * be used as a key.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
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

  it('keeps a repeated name as a list, which readParams refuses when the values differ, naming the parameter', () => {
    const form = parseForm('code=a&code=b&code=c', FORBIDDEN_KEYS);
    assert.deepEqual(form.code, ['a', 'b', 'c']);
    assert.throws(
      () => readParams(form, MAX_TOKEN_PARAM),
      (error: unknown) => isOAuthError(error) && error.error === 'invalid_request' && error.message === 'parameter code is given 3 times with different values; give it once',
    );
  });

  it('reads a name repeated with the very same value as that one value (decision 0055)', () => {
    const form = parseForm('state=S&code=C&state=S&state=S', FORBIDDEN_KEYS);
    assert.deepEqual({ ...form }, { state: 'S', code: 'C' });
    // A query string's repeats arrive as a list: the same rule reads it as one value.
    assert.deepEqual({ ...readParams({ state: ['S', 'S'], code: 'C' }, MAX_TOKEN_PARAM) }, { state: 'S', code: 'C' });
  });

  it('refuses a value that is no string, and a repeat whose copies are over the size limit', () => {
    for (const value of [1, true, null, {}, [], ['a', 1]]) {
      assert.throws(
        () => readParams({ code: value }, MAX_TOKEN_PARAM),
        (error: unknown) => isOAuthError(error) && error.error === 'invalid_request' && error.message === 'parameter code must be a string',
        JSON.stringify(value),
      );
    }
    const long = 'x'.repeat(MAX_TOKEN_PARAM + 1);
    assert.throws(() => readParams({ code: [long, long] }, MAX_TOKEN_PARAM), (error: unknown) => isOAuthError(error) && /parameter code is longer than/.test(error.message));
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
