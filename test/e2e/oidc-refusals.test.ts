/**
 * What the OIDC provider refuses: bad authorization requests (shown or redirected per RFC 6749 §4.1.2.1), PKCE
 * failures, code reuse and expiry, expired auth requests, refresh token reuse, expired access tokens, and oversized
 * parameters. None of it may produce a 5xx. Time is moved by a manual clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as client from 'openid-client';
import { createSecretBox, deriveSecretsKey } from '../../src/crypto/secret-box.js';
import { manualClock } from '../../src/shared/clock.js';
import { REFRESH_REUSE_GRACE_MS } from '../../src/services/oidc-provider/grants/refresh-token.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createAuthPolicy, createIdentity } from '../helpers/fixtures.js';
import { discoverClient, followCallback, loginToCallback, postForm, postLogin, REDIRECT_URI, startLogin } from '../helpers/oidc.js';

const MINUTE = 60_000;
const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');

describe(`OIDC provider refusals (${testDialect})`, () => {
  const clock = manualClock(new Date());
  let ctl: TestController;
  let config: client.Configuration;
  before(async () => {
    ctl = await startTestController({ clock });
    config = await discoverClient(ctl);
    await createIdentity(ctl.running.database, { name: 'bob', username: 'bob', password: 'bob-password' });
  });
  after(async () => ctl.close());

  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
  const authorize = (params: Record<string, string>) =>
    ctl.fetch(`/oidc/authorization?${new URLSearchParams({ client_id: 'svc', response_type: 'code', scope: 'openid', redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: 'S256', state: 's1', ...params })}`);
  const exchange = (fields: Record<string, string>) => postForm(ctl, '/oidc/token', { grant_type: 'authorization_code', client_id: 'svc', redirect_uri: REDIRECT_URI, ...fields });

  it('shows, never redirects, an unknown client id or an unregistered or mismatched redirect URI', async () => {
    for (const params of <Record<string, string>[]>[{ client_id: 'other' }, { redirect_uri: 'https://evil.example.com/auth/callback' }, { redirect_uri: 'http://127.0.0.1:1/other' }, { redirect_uri: '' }]) {
      const res = await authorize(params);
      assert.equal(res.status, 400, JSON.stringify(params));
      assert.equal(res.headers.location, undefined);
      assert.ok(res.json().error);
    }
  });

  it('redirects with error and state when PKCE is missing or plain', async () => {
    for (const params of <Record<string, string>[]>[{ code_challenge: '' }, { code_challenge_method: 'plain' }, { code_challenge_method: '' }]) {
      const res = await authorize(params);
      assert.equal(res.status, 302);
      const location = new URL(String(res.headers.location));
      assert.equal(location.searchParams.get('error'), 'invalid_request');
      assert.equal(location.searchParams.get('state'), 's1');
    }
  });

  it('refuses a wrong code verifier, then the code still works once and a replay revokes its tokens', async () => {
    const login = await loginToCallback(ctl, config, 'bob', 'bob-password');
    const code = login.callback.searchParams.get('code')!;
    const wrong = await exchange({ code, code_verifier: client.randomPKCECodeVerifier() });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.json().error, 'invalid_grant');
    const good = await exchange({ code, code_verifier: login.verifier });
    assert.equal(good.status, 200, good.text);
    assert.equal(good.headers['cache-control'], 'no-store');
    const replay = await exchange({ code, code_verifier: login.verifier });
    assert.equal(replay.status, 400);
    assert.equal(replay.json().error, 'invalid_grant');
    const res = await ctl.fetch('/edge/client/v1/current-identity', { headers: { authorization: `Bearer ${good.json().access_token}` } });
    assert.equal(res.status, 401);
    const refresh = await postForm(ctl, '/oidc/token', { grant_type: 'refresh_token', client_id: 'svc', refresh_token: good.json().refresh_token });
    assert.equal(refresh.json().error, 'invalid_grant');
  });

  it('invalidates a code after three failed exchanges, even when the next one is right', async () => {
    const login = await loginToCallback(ctl, config, 'bob', 'bob-password');
    const code = login.callback.searchParams.get('code')!;
    const wrongs = await Promise.all([1, 2, 3].map(() => exchange({ code, code_verifier: client.randomPKCECodeVerifier() })));
    assert.deepEqual(wrongs.map((res) => res.json().error), ['invalid_grant', 'invalid_grant', 'invalid_grant']);
    const right = await exchange({ code, code_verifier: login.verifier });
    assert.equal(right.status, 400, right.text);
    assert.match(right.json().error_description, /no longer valid/);

    const other = await loginToCallback(ctl, config, 'bob', 'bob-password');
    const otherCode = other.callback.searchParams.get('code')!;
    assert.equal((await exchange({ code: otherCode, code_verifier: client.randomPKCECodeVerifier() })).status, 400);
    assert.equal((await exchange({ code: otherCode, code_verifier: login.verifier, redirect_uri: 'http://127.0.0.1:9/auth/callback' })).status, 400);
    assert.equal((await exchange({ code: otherCode, code_verifier: other.verifier })).status, 200, 'two failures leave the code usable');
  });

  it('gives each primary login on one auth request a code and session of its own, each code redeemed once', async () => {
    await createIdentity(ctl.running.database, { name: 'bea', username: 'bea', password: 'bea-password' });
    const started = await startLogin(ctl, config);
    const logins = [await postLogin(ctl, started.authRequestId, 'bob', 'bob-password'), await postLogin(ctl, started.authRequestId, 'bea', 'bea-password')];
    const codes: string[] = [];
    for (const login of logins) {
      assert.equal(login.status, 302, login.text);
      codes.push(new URL(String(await followCallback(ctl, login.headers.location))).searchParams.get('code')!);
    }
    assert.notEqual(codes[0], codes[1]);
    const names: string[] = [];
    for (const code of codes) {
      const tokens = await exchange({ code, code_verifier: started.verifier });
      assert.equal(tokens.status, 200, tokens.text);
      const me = await ctl.fetch('/edge/client/v1/current-identity', { headers: { authorization: `Bearer ${tokens.json().access_token}` } });
      names.push(me.json().data.name);
      const again = await exchange({ code, code_verifier: started.verifier });
      assert.match(again.json().error_description, /already been used/);
    }
    assert.deepEqual(names, ['bob', 'bea'], 'each login is its own identity\'s');
  });

  it('keeps a partially authenticated request partial, and bound to its identity, on another primary login', async () => {
    const policy = await createAuthPolicy(ctl.running.database, (body) => (body.secondary.requireTotp = true));
    await createIdentity(ctl.running.database, { name: 'tom', username: 'tom', password: 'tom-password', authPolicyId: policy });
    const started = await startLogin(ctl, config);
    const first = await postLogin(ctl, started.authRequestId, 'tom', 'tom-password');
    assert.equal(first.status, 200, first.text);
    const again = await postLogin(ctl, started.authRequestId, 'tom', 'tom-password');
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.json().authQueries, first.json().authQueries, 'the same factor is still owed');
    // Another identity's login on the same id is a login of its own (decision 0046): the request stays tom's.
    const other = await postLogin(ctl, started.authRequestId, 'bob', 'bob-password');
    assert.equal(other.status, 302, other.text);
    const code = new URL(String(await followCallback(ctl, other.headers.location))).searchParams.get('code')!;
    const tokens = await exchange({ code, code_verifier: started.verifier });
    const me = await ctl.fetch('/edge/client/v1/current-identity', { headers: { authorization: `Bearer ${tokens.json().access_token}` } });
    assert.equal(me.json().data.name, 'bob');
    const owing = await ctl.fetch(`/oidc/login/auth-queries?id=${encodeURIComponent(started.authRequestId)}`);
    assert.equal(owing.status, 200, owing.text);
    assert.deepEqual(owing.json().authQueries, first.json().authQueries, 'nothing changed');
    const callback = await ctl.fetch(`/oidc/authorize/callback?id=${encodeURIComponent(started.authRequestId)}`);
    assert.equal(callback.status, 400, 'still no code');
  });

  it('revokes the tokens of a code replayed after its attempts ran out, and says an unknown code is invalid', async () => {
    const login = await loginToCallback(ctl, config, 'bob', 'bob-password');
    const code = login.callback.searchParams.get('code')!;
    const good = await exchange({ code, code_verifier: login.verifier });
    assert.equal(good.status, 200, good.text);
    for (let i = 0; i < 3; i++) assert.equal((await exchange({ code, code_verifier: client.randomPKCECodeVerifier() })).status, 400);
    const replay = await exchange({ code, code_verifier: login.verifier });
    assert.equal(replay.status, 400);
    assert.match(replay.json().error_description, /already been used/);
    assert.equal((await ctl.fetch('/edge/client/v1/current-identity', { headers: { authorization: `Bearer ${good.json().access_token}` } })).status, 401);
    const unknown = await exchange({ code: 'no-such-code', code_verifier: login.verifier });
    assert.equal(unknown.status, 400);
    assert.match(unknown.json().error_description, /code is invalid/);
  });

  describe('a refresh token presented twice', () => {
    const refresh = (token: string) => postForm(ctl, '/oidc/token', { grant_type: 'refresh_token', client_id: 'svc', refresh_token: token });
    async function tokensOf(name = 'bob') {
      const login = await loginToCallback(ctl, config, name, `${name}-password`);
      return (await exchange({ code: login.callback.searchParams.get('code')!, code_verifier: login.verifier })).json();
    }

    it('gives a duplicate within the grace window the same successor, and the family lives on', async () => {
      const tokens = await tokensOf();
      const first = await refresh(tokens.refresh_token);
      clock.advance(REFRESH_REUSE_GRACE_MS - 500);
      const duplicate = await refresh(tokens.refresh_token);
      assert.equal(duplicate.status, 200, duplicate.text);
      assert.equal(duplicate.json().refresh_token, first.json().refresh_token);
      assert.equal((await ctl.fetch('/edge/client/v1/current-identity', { headers: { authorization: `Bearer ${duplicate.json().access_token}` } })).status, 200);
      const next = await refresh(first.json().refresh_token);
      assert.equal(next.status, 200, next.text);
      assert.notEqual(next.json().refresh_token, first.json().refresh_token);
    });

    it('answers two tabs refreshing at once with one successor for both', async () => {
      const tokens = await tokensOf();
      const answers = await Promise.all([refresh(tokens.refresh_token), refresh(tokens.refresh_token)]);
      assert.deepEqual(answers.map((res) => res.status), [200, 200], answers.map((res) => res.text).join());
      assert.equal(answers[0]!.json().refresh_token, answers[1]!.json().refresh_token);
      assert.equal((await refresh(answers[0]!.json().refresh_token)).status, 200);
    });

    it('revokes the family when the duplicate comes after the successor was already used, even within the window', async () => {
      const tokens = await tokensOf();
      const first = await refresh(tokens.refresh_token);
      const second = await refresh(first.json().refresh_token);
      assert.equal(second.status, 200);
      const late = await refresh(tokens.refresh_token);
      assert.equal(late.json().error, 'invalid_grant');
      assert.equal((await refresh(second.json().refresh_token)).json().error, 'invalid_grant');
      assert.equal((await ctl.fetch('/edge/client/v1/current-identity', { headers: { authorization: `Bearer ${second.json().access_token}` } })).status, 401);
    });

    it('opens a successor an earlier release sealed for the token id, within the window (a rolling upgrade)', async () => {
      const tokens = await tokensOf();
      const first = (await refresh(tokens.refresh_token)).json();
      const box = createSecretBox(deriveSecretsKey(readFileSync(ctl.pki.serverKey, 'utf8')));
      const presented = ctl.running.database.db.selectFrom('oidc_refresh_tokens').where('token_hash', '=', sha256Hex(tokens.refresh_token));
      const { id } = await presented.select('id').executeTakeFirstOrThrow();
      await ctl.running.database.db
        .updateTable('oidc_refresh_tokens')
        .set({ successor_sealed: box.seal(first.refresh_token, `oidc-refresh-successor:${id}`) })
        .where('token_hash', '=', sha256Hex(tokens.refresh_token))
        .execute();
      const duplicate = await refresh(tokens.refresh_token);
      assert.equal(duplicate.status, 200, duplicate.text);
      assert.equal(duplicate.json().refresh_token, first.refresh_token);
      // A successor sealed for another token opens under neither binding: reuse, and the family is revoked.
      await ctl.running.database.db
        .updateTable('oidc_refresh_tokens')
        .set({ successor_sealed: box.seal(first.refresh_token, 'oidc-refresh-successor:another-token') })
        .where('token_hash', '=', sha256Hex(tokens.refresh_token))
        .execute();
      assert.equal((await refresh(tokens.refresh_token)).json().error, 'invalid_grant');
      assert.equal((await refresh(first.refresh_token)).json().error, 'invalid_grant');
    });

    it('stores the successor sealed, never in clear', async () => {
      const tokens = await tokensOf();
      const first = (await refresh(tokens.refresh_token)).json();
      const rows = await ctl.running.database.db.selectFrom('oidc_refresh_tokens').select(['token_hash', 'successor_sealed']).execute();
      const text = JSON.stringify(rows);
      assert.ok(!text.includes(first.refresh_token));
      assert.ok(!text.includes(tokens.refresh_token));
      assert.ok(rows.some((row) => row.successor_sealed?.startsWith('v1.')));
    });
  });

  it('refuses a redirect_uri at the token endpoint that differs from the authorization request', async () => {
    const login = await loginToCallback(ctl, config, 'bob', 'bob-password');
    const res = await exchange({ code: login.callback.searchParams.get('code')!, code_verifier: login.verifier, redirect_uri: 'http://127.0.0.1:9/auth/callback' });
    assert.equal(res.json().error, 'invalid_grant');
  });

  it('expires codes after a minute and auth requests after ten', async () => {
    const login = await loginToCallback(ctl, config, 'bob', 'bob-password');
    clock.advance(MINUTE + 1000);
    const res = await exchange({ code: login.callback.searchParams.get('code')!, code_verifier: login.verifier });
    assert.equal(res.json().error, 'invalid_grant');

    const started = await startLogin(ctl, config);
    clock.advance(10 * MINUTE + 1000);
    const late = await postLogin(ctl, started.authRequestId, 'bob', 'bob-password');
    assert.equal(late.status, 400);
    assert.equal(late.json().error, 'invalid_request');
  });

  describe('a refresh token refused', () => {
    const refresh = (token: string, extra: Record<string, string> = {}) => postForm(ctl, '/oidc/token', { grant_type: 'refresh_token', client_id: 'svc', refresh_token: token, ...extra });
    async function tokensOf() {
      const login = await loginToCallback(ctl, config, 'bob', 'bob-password');
      return (await exchange({ code: login.callback.searchParams.get('code')!, code_verifier: login.verifier })).json();
    }
    const stateOf = async (token: string) =>
      (await ctl.running.database.db.selectFrom('oidc_refresh_tokens').select('status').where('token_hash', '=', sha256Hex(token)).executeTakeFirstOrThrow()).status;

    it('for a wider scope is not spent, and a narrower scope is granted', async () => {
      const tokens = await tokensOf();
      const wider = await refresh(tokens.refresh_token, { scope: 'openid offline_access profile' });
      assert.deepEqual([wider.status, wider.json().error], [400, 'invalid_scope']);
      assert.equal(await stateOf(tokens.refresh_token), 'active');
      const narrower = await refresh(tokens.refresh_token, { scope: 'openid' });
      assert.equal(narrower.status, 200, narrower.text);
      assert.equal(await stateOf(tokens.refresh_token), 'rotated');
      assert.equal((await refresh(narrower.json().refresh_token)).status, 200);
    });

    it('once expired, and nothing is rotated', async () => {
      const tokens = await tokensOf();
      const count = async () => Number((await ctl.running.database.db.selectFrom('oidc_refresh_tokens').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      const before = await count();
      clock.advance(24 * 60 * MINUTE + 1000);
      const late = await refresh(tokens.refresh_token);
      assert.deepEqual([late.status, late.json().error, late.json().error_description], [400, 'invalid_grant', 'the refresh token has expired']);
      assert.equal(await stateOf(tokens.refresh_token), 'active', 'left as it was');
      assert.equal(await count(), before, 'no successor stored');
    });

    it('of a revoked session, and nothing is rotated', async () => {
      const tokens = await tokensOf();
      const { session_id } = await ctl.running.database.db.selectFrom('oidc_refresh_tokens').select('session_id').where('token_hash', '=', sha256Hex(tokens.refresh_token)).executeTakeFirstOrThrow();
      await ctl.running.database.db.updateTable('oidc_sessions').set({ revoked_at: clock.now().toISOString() }).where('id', '=', session_id).execute();
      const res = await refresh(tokens.refresh_token);
      assert.deepEqual([res.status, res.json().error_description], [400, 'the refresh token has been revoked']);
      assert.equal(await stateOf(tokens.refresh_token), 'active');
    });

    it('when unknown or missing', async () => {
      assert.deepEqual((await refresh('no-such-token')).json(), { error: 'invalid_grant', error_description: 'the refresh token is invalid' });
      assert.equal((await refresh('no-such-token', { scope: 'openid' })).json().error, 'invalid_grant');
      const missing = await postForm(ctl, '/oidc/token', { grant_type: 'refresh_token', client_id: 'svc' });
      assert.deepEqual([missing.status, missing.json().error], [400, 'invalid_request']);
    });
  });

  it('revokes the whole family when a rotated refresh token is presented again', async () => {
    const login = await loginToCallback(ctl, config, 'bob', 'bob-password');
    const tokens = (await exchange({ code: login.callback.searchParams.get('code')!, code_verifier: login.verifier })).json();
    const first = await postForm(ctl, '/oidc/token', { grant_type: 'refresh_token', client_id: 'svc', refresh_token: tokens.refresh_token });
    assert.equal(first.status, 200);
    clock.advance(REFRESH_REUSE_GRACE_MS + 1);
    const reuse = await postForm(ctl, '/oidc/token', { grant_type: 'refresh_token', client_id: 'svc', refresh_token: tokens.refresh_token });
    assert.equal(reuse.json().error, 'invalid_grant');
    const next = await postForm(ctl, '/oidc/token', { grant_type: 'refresh_token', client_id: 'svc', refresh_token: first.json().refresh_token });
    assert.equal(next.json().error, 'invalid_grant');
    const api = await ctl.fetch('/edge/client/v1/current-identity', { headers: { authorization: `Bearer ${first.json().access_token}` } });
    assert.equal(api.status, 401);
  });

  it('answers an expired access token with realm svc-oidc error expired', async () => {
    const login = await loginToCallback(ctl, config, 'bob', 'bob-password');
    const tokens = (await exchange({ code: login.callback.searchParams.get('code')!, code_verifier: login.verifier })).json();
    const headers = { authorization: `Bearer ${tokens.access_token}` };
    assert.equal((await ctl.fetch('/edge/client/v1/current-identity', { headers })).status, 200);
    clock.advance(31 * MINUTE);
    const res = await ctl.fetch('/edge/client/v1/current-identity', { headers });
    assert.equal(res.status, 401);
    assert.match(res.headerValues('www-authenticate').join(), /realm="svc-oidc" error="expired"/);
  });

  it('revokes a session through /oidc/revoke and always answers 200', async () => {
    const login = await loginToCallback(ctl, config, 'bob', 'bob-password');
    const tokens = (await exchange({ code: login.callback.searchParams.get('code')!, code_verifier: login.verifier })).json();
    assert.equal((await postForm(ctl, '/oidc/revoke', { token: tokens.refresh_token })).status, 200);
    assert.equal((await postForm(ctl, '/oidc/revoke', { token: 'not-a-token' })).status, 200);
    const res = await ctl.fetch('/edge/client/v1/current-identity', { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(res.status, 401);
  });

  it('refuses oversized parameters with 400 and never answers 5xx to malformed input', async () => {
    assert.equal((await authorize({ state: 'x'.repeat(2049) })).status, 400);
    assert.equal((await exchange({ code: 'c'.repeat(10 * 1024 + 1), code_verifier: 'v'.repeat(50) })).status, 400);
    const cases = [
      await ctl.fetch('/oidc/authorization?client_id=svc&client_id=svc'),
      await ctl.fetch('/oidc/token', { method: 'POST', body: { grant_type: 'authorization_code' } }),
      await postForm(ctl, '/oidc/token', {}),
      await postForm(ctl, '/oidc/token', { grant_type: 'password', client_id: 'svc' }),
      await postForm(ctl, '/oidc/token', { grant_type: 'refresh_token', client_id: 'other', refresh_token: 'x' }),
      await ctl.fetch('/oidc/login/password', { method: 'POST', body: { authRequestId: ['a'], username: 1 } }),
      await ctl.fetch('/oidc/login/password', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }),
      await ctl.fetch('/oidc/login/auth-queries?id=nope'),
      await ctl.fetch('/oidc/end_session?id_token_hint=garbage'),
      await ctl.fetch(`/oidc/end_session?post_logout_redirect_uri=${encodeURIComponent('https://evil.example.com/')}`),
      await ctl.fetch('/oidc/userinfo', { headers: { authorization: 'Bearer garbage' } }),
    ];
    for (const res of cases) {
      assert.ok(res.status >= 400 && res.status < 500, `${res.status} ${res.text}`);
      assert.ok(res.json().error, res.text);
    }
  });
});
