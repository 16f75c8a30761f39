/**
 * Config types on the API session (issue 15, item 7): what a legacy `authenticate` or an OIDC login asks for is kept
 * on the session as config type ids (names resolved, `all` kept, values naming nothing dropped), shown on the
 * session and carried in the access token's `z_ct`; the sessions domain reads it back for the services list.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { followCallback, postForm, REDIRECT_URI } from '../helpers/oidc.js';

const CLIENT = '/edge/client/v1';
const INTERCEPT = 'g7cIWbcGg';
const HOST = 'NH5p4FpGR';

describe(`config types on the API session (${testDialect})`, () => {
  let ctl: TestController;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
    await createIdentity(ctl.running.database, { name: 'ct-user', username: 'ct-user', password: 'ct-user-password' });
  });
  after(async () => ctl.close());

  const legacy = async (configTypes: unknown) => {
    const res = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: 'ct-user', password: 'ct-user-password', configTypes } });
    return res;
  };

  it('keeps ids for names and ids, once each and in order, and drops values naming nothing', async () => {
    const res = await legacy(['intercept.v1', HOST, 'no-such-type', INTERCEPT, 'host.v2']);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json().data.configTypes, [INTERCEPT, HOST, 'host.v2']);
    const read = await ctl.fetch(`${CLIENT}/current-api-session`, { headers: { 'svc-session': res.json().data.token } });
    assert.deepEqual(read.json().data.configTypes, [INTERCEPT, HOST, 'host.v2']);
  });

  it('keeps all for all (any case), and nothing for a list naming nothing', async () => {
    assert.deepEqual((await legacy(['intercept.v1', 'ALL'])).json().data.configTypes, ['all']);
    const none = await legacy(['no-such-type']);
    assert.equal(none.status, 200, 'a login never fails over a type the network lacks');
    assert.deepEqual(none.json().data.configTypes, []);
  });

  it('still refuses malformed configTypes with 400 naming the field', async () => {
    for (const configTypes of ['all', [5], [''], Array.from({ length: 101 }, (_, i) => `t${i}`)]) {
      const res = await legacy(configTypes);
      assert.equal(res.status, 400, res.text);
      assert.match(String(res.json().error.cause.field), /configTypes/);
    }
  });

  it('resolves an OIDC login\'s config types into the session and z_ct', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({
      client_id: 'svc',
      response_type: 'code',
      scope: 'openid offline_access',
      redirect_uri: REDIRECT_URI,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 's',
    });
    const authorize = await ctl.fetch(`/oidc/authorization?${query}`);
    const authRequestId = new URL(String(authorize.headers.location), ctl.baseUrl).searchParams.get('authRequestID') ?? '';
    const login = await ctl.fetch('/oidc/login/password', {
      method: 'POST',
      body: { authRequestId, username: 'ct-user', password: 'ct-user-password', configTypes: ['host.v1', 'nothing', 'intercept.v1'] },
    });
    assert.equal(login.status, 302, login.text);
    const code = new URL(String(await followCallback(ctl, login.headers.location))).searchParams.get('code') ?? '';
    const tokens = await postForm(ctl, '/oidc/token', { grant_type: 'authorization_code', client_id: 'svc', redirect_uri: REDIRECT_URI, code, code_verifier: verifier });
    const accessToken = tokens.json().access_token as string;
    assert.deepEqual(decodeJwt(accessToken).z_ct, [HOST, INTERCEPT]);
    const auth = await ctl.running.services.auth.authenticate({ sessionToken: undefined, bearerTokens: [accessToken] });
    assert.deepEqual(auth.session.configTypes, [HOST, INTERCEPT]);
  });
});
