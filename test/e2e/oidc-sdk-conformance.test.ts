/**
 * The OIDC provider as the public SDKs of this ecosystem drive it (issue 11, points 2, 4 and 10): the authorization
 * endpoint by POST (parameters in the query with an empty body, or as a form), 405 with `Allow` for a wrong method,
 * the controller-hosted callback hop that carries the code, and auth requests that cost the store nothing, nor does a
 * login that owes no secondary factor (its code carries the grant: decision 0046), so a flood of authorization calls
 * leaves the store as it was while a real login succeeds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as client from 'openid-client';
import { CODE_TTL_MS } from '../../src/services/oidc-provider/oidc-codes.js';
import { manualClock } from '../../src/shared/clock.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createAuthPolicy, createIdentity } from '../helpers/fixtures.js';
import { injected } from '../helpers/https.js';
import { discoverClient, followCallback, postForm, postLogin, REDIRECT_URI, startLogin } from '../helpers/oidc.js';

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

describe(`the OIDC provider as SDKs drive it (${testDialect})`, () => {
  const clock = manualClock(new Date());
  let ctl: TestController;
  let config: client.Configuration;
  before(async () => {
    ctl = await startTestController({ clock });
    config = await discoverClient(ctl);
    await createIdentity(ctl.running.database, { name: 'sam', username: 'sam', password: 'sam-password' });
  });
  after(async () => ctl.close());

  const params = (extra: Record<string, string> = {}) =>
    new URLSearchParams({ client_id: 'svc', response_type: 'code', scope: 'openid offline_access', redirect_uri: REDIRECT_URI, code_challenge: CHALLENGE, code_challenge_method: 'S256', state: 'st-1', ...extra });
  const storedRequests = async () => Number((await ctl.running.database.db.selectFrom('oidc_auth_requests').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const authRequestIdOf = (location: unknown) => new URL(String(location), ctl.baseUrl).searchParams.get('authRequestID') as string;
  const exchange = (code: string, verifier = VERIFIER) => postForm(ctl, '/oidc/token', { grant_type: 'authorization_code', client_id: 'svc', redirect_uri: REDIRECT_URI, code, code_verifier: verifier });

  describe('the authorization endpoint', () => {
    it('takes POST with every parameter in the query and an empty body, as SDKs send it', async () => {
      for (const headers of [{}, { 'content-type': 'application/x-www-form-urlencoded' }] as Array<Record<string, string>>) {
        const res = await ctl.fetch(`/oidc/authorization?${params()}`, { method: 'POST', headers, body: '' });
        assert.equal(res.status, 302, res.text);
        assert.equal(new URL(String(res.headers.location), ctl.baseUrl).pathname, '/oidc/login/username');
      }
    });

    it('takes POST with the parameters as a form body', async () => {
      const res = await ctl.fetch('/oidc/authorization', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: params().toString() });
      assert.equal(res.status, 302, res.text);
      const login = await postLogin(ctl, authRequestIdOf(res.headers.location), 'sam', 'sam-password');
      assert.equal(login.status, 302, login.text);
    });

    it('refuses a parameter given in both the query and the body with different values, like a repeated one', async () => {
      const res = await ctl.fetch(`/oidc/authorization?${params()}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'state=other' });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json().error, 'invalid_request');
      assert.match(res.json().error_description, /parameter state is in both the query and the body with different values/);
      const repeated = await ctl.fetch(`/oidc/authorization?${params()}&state=again`);
      assert.equal(repeated.status, 400);
      assert.match(repeated.json().error_description, /parameter state is given 2 times with different values/);
    });

    it('reads a parameter repeated with the same value, in the query or in the query and the body, once (decision 0055)', async () => {
      const inQuery = await ctl.fetch(`/oidc/authorization?${params()}&state=st-1&client_id=svc`);
      assert.equal(inQuery.status, 302, inQuery.text);
      assert.equal(new URL(String(inQuery.headers.location), ctl.baseUrl).pathname, '/oidc/login/username');
      const inBoth = await ctl.fetch(`/oidc/authorization?${params()}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'state=st-1' });
      assert.equal(inBoth.status, 302, inBoth.text);
    });

    it('answers a wrong method on a provider path with 405 and Allow, not 404', async () => {
      for (const [method, path, allow] of [
        ['PUT', '/oidc/authorization', 'GET, POST, HEAD'],
        ['DELETE', '/oidc/token', 'POST'],
        ['PATCH', '/oidc/keys', 'GET, HEAD'],
        ['POST', '/oidc/authorize/callback', 'GET, HEAD'],
      ] as const) {
        const res = await ctl.fetch(path, { method });
        assert.equal(res.status, 405, `${method} ${path}: ${res.text}`);
        assert.equal(res.headers.allow, allow);
        assert.equal(res.json().error, 'invalid_request');
      }
      assert.equal((await ctl.fetch('/oidc/no-such-endpoint')).status, 404);
    });

    it('refuses state, nonce and scope values longer than their limits, by redirect', async () => {
      for (const [name, length] of [['state', 1025], ['nonce', 513], ['scope', 513]] as const) {
        const value = name === 'scope' ? `openid ${'x'.repeat(length)}` : 'x'.repeat(length);
        const res = await ctl.fetch(`/oidc/authorization?${params({ [name]: value, state: name === 'state' ? value : 'st-1' })}`);
        assert.equal(res.status, 302, res.text);
        const target = new URL(String(res.headers.location));
        assert.equal(target.searchParams.get('error'), 'invalid_request');
        assert.match(String(target.searchParams.get('error_description')), new RegExp(`${name} is longer than`));
      }
    });
  });

  describe('the callback hop', () => {
    it('sends a completed login to the controller callback, which redirects to the client with a code redeemed once', async () => {
      const started = await startLogin(ctl, config);
      const login = await postLogin(ctl, started.authRequestId, 'sam', 'sam-password');
      assert.equal(login.status, 302, login.text);
      const callback = new URL(String(login.headers.location));
      assert.equal(`${callback.origin}${callback.pathname}`, `${ctl.baseUrl}/oidc/authorize/callback`);
      assert.ok(callback.searchParams.get('id'));

      const hop = await ctl.fetch(callback.toString());
      assert.equal(hop.status, 302, hop.text);
      assert.equal(hop.headers['cache-control'], 'no-store');
      const target = new URL(String(hop.headers.location));
      assert.equal(`${target.origin}${target.pathname}`, REDIRECT_URI);
      assert.equal(target.searchParams.get('state'), started.state);
      assert.equal(target.searchParams.get('iss'), `${ctl.baseUrl}/oidc`);
      const tokens = await client.authorizationCodeGrant(config, target, { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce });
      assert.ok(tokens.access_token);

      // The callback carries the login's code (decision 0046): followed again it gives the same, spent, code, whose
      // exchange with the verifier revokes what the first gave; without the verifier it revokes nothing.
      const again = await ctl.fetch(callback.toString());
      assert.equal(again.status, 302, again.text);
      assert.equal(again.headers.location, hop.headers.location);
      const code = target.searchParams.get('code')!;
      const stolen = await exchange(code, client.randomPKCECodeVerifier());
      assert.equal(stolen.status, 400);
      assert.equal((await ctl.fetch('/edge/client/v1/current-identity', { headers: { authorization: `Bearer ${tokens.access_token}` } })).status, 200);
      const replay = await exchange(code, started.verifier);
      assert.match(replay.json().error_description, /already been used/);
      assert.equal((await ctl.fetch('/edge/client/v1/current-identity', { headers: { authorization: `Bearer ${tokens.access_token}` } })).status, 401);
    });

    it('refuses a code past its minute at the callback and the token endpoint, and a code sealed for anything else', async () => {
      const started = await startLogin(ctl, config);
      const login = await postLogin(ctl, started.authRequestId, 'sam', 'sam-password');
      const hop = await ctl.fetch(String(login.headers.location));
      const code = new URL(String(hop.headers.location)).searchParams.get('code')!;
      clock.advance(CODE_TTL_MS);
      const late = await ctl.fetch(String(login.headers.location));
      assert.equal(late.status, 400, late.text);
      assert.match(late.json().error_description, /login has expired/);
      const lateExchange = await exchange(code, started.verifier);
      assert.equal(lateExchange.status, 400, lateExchange.text);
      assert.match(lateExchange.json().error_description, /code has expired/);
      // An auth request id is sealed by the same key for another purpose: never taken for a code.
      const asCode = await exchange(started.authRequestId, started.verifier);
      assert.equal(asCode.status, 400);
      assert.match(asCode.json().error_description, /code is invalid/);
    });

    it('gives no code for a request that has not completed its login, or an id that is not ours', async () => {
      const started = await startLogin(ctl, config);
      const early = await ctl.fetch(`/oidc/authorize/callback?id=${encodeURIComponent(started.authRequestId)}`);
      assert.equal(early.status, 400, early.text);
      assert.match(early.json().error_description, /not completed its login/);

      const policy = await createAuthPolicy(ctl.running.database, (body) => (body.secondary.requireTotp = true));
      await createIdentity(ctl.running.database, { name: 'tia', username: 'tia', password: 'tia-password', authPolicyId: policy });
      const partial = await startLogin(ctl, config);
      assert.equal((await postLogin(ctl, partial.authRequestId, 'tia', 'tia-password')).status, 200);
      const owing = await ctl.fetch(`/oidc/authorize/callback?id=${encodeURIComponent(partial.authRequestId)}`);
      assert.equal(owing.status, 400, owing.text);
      assert.match(owing.json().error_description, /not completed its login/);

      const tampered = `${started.authRequestId.slice(0, -2)}${started.authRequestId.endsWith('AA') ? 'BB' : 'AA'}`;
      for (const id of ['', 'nonsense', tampered, '9f1c2a9e-3b1d-4c55-9a57-3f1a2b3c4d5e']) {
        const res = await ctl.fetch(`/oidc/authorize/callback?id=${encodeURIComponent(id)}`);
        assert.equal(res.status, 400, `${id}: ${res.text}`);
        assert.equal(res.json().error, 'invalid_request');
      }
    });
  });

  describe('auth requests before login', () => {
    it('stores nothing for an authorization request, nor for a login that owes no secondary factor, and refuses an altered id', async () => {
      const before = await storedRequests();
      const started = await startLogin(ctl, config);
      assert.equal(await storedRequests(), before);
      const tampered = started.authRequestId.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
      const refused = await postLogin(ctl, tampered, 'sam', 'sam-password');
      assert.equal(refused.status, 400, refused.text);
      const login = await postLogin(ctl, started.authRequestId, 'sam', 'sam-password');
      assert.equal(login.status, 302);
      assert.equal(await storedRequests(), before);
      const code = new URL(String(await followCallback(ctl, login.headers.location))).searchParams.get('code')!;
      assert.equal((await exchange(code, started.verifier)).status, 200);
    });

    it('gives two logins racing on one auth request id a session each', async () => {
      const started = await startLogin(ctl, config);
      const results = await Promise.all([postLogin(ctl, started.authRequestId, 'sam', 'sam-password'), postLogin(ctl, started.authRequestId, 'sam', 'sam-password')]);
      assert.deepEqual(results.map((res) => res.status), [302, 302]);
      const sessions = new Set<string>();
      for (const res of results) {
        const code = new URL(String(await followCallback(ctl, res.headers.location))).searchParams.get('code')!;
        const tokens = await exchange(code, started.verifier);
        assert.equal(tokens.status, 200, tokens.text);
        sessions.add(String(JSON.parse(Buffer.from(tokens.json().access_token.split('.')[1], 'base64url').toString()).z_asid));
      }
      assert.equal(sessions.size, 2);
    });

    it('leaves the store as it was after a flood of authorization calls, while a real login succeeds', async () => {
      const before = await storedRequests();
      const flood = async () => {
        // Injected without a socket: 1,000 TLS handshakes cost seconds of CPU and the store is what this is about.
        for (let i = 0; i < 250; i++) {
          const res = await injected(ctl.running.apps[0]!.app, `/oidc/authorization?${params({ state: `flood-${i}-${'s'.repeat(900)}`, nonce: 'n'.repeat(500) })}`, {});
          assert.equal(res.status, 302);
        }
      };
      const login = async () => {
        const started = await startLogin(ctl, config);
        const res = await postLogin(ctl, started.authRequestId, 'sam', 'sam-password');
        assert.equal(res.status, 302, res.text);
        const hop = await ctl.fetch(String(res.headers.location));
        const code = new URL(String(hop.headers.location)).searchParams.get('code');
        assert.ok(code);
      };
      await Promise.all([flood(), flood(), flood(), flood(), login()]);
      // 1,000 authorization requests, the largest values allowed, and a login: no row.
      assert.equal(await storedRequests(), before);
    });

    it('redeems a code exchanged with the verifier of the sealed challenge', async () => {
      const res = await ctl.fetch(`/oidc/authorization?${params()}`);
      const login = await postLogin(ctl, authRequestIdOf(res.headers.location), 'sam', 'sam-password');
      const hop = await ctl.fetch(String(login.headers.location));
      const code = new URL(String(hop.headers.location)).searchParams.get('code') as string;
      const tokens = await exchange(code);
      assert.equal(tokens.status, 200, tokens.text);
      assert.equal(tokens.json().token_type, 'Bearer');
    });
  });
});

describe(`bounded login work (${testDialect})`, () => {
  let ctl: TestController;
  before(async () => {
    ctl = await startTestController({ authenticationLimits: { concurrency: 1, maxQueued: 1, maxWaitMs: 60_000, retryAfterSeconds: 3 } });
    await createIdentity(ctl.running.database, { name: 'louis', username: 'louis', password: 'louis-password' });
  });
  after(async () => ctl.close());

  const login = (password: string) => ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'louis', password } });

  it('answers logins beyond the running and queued bound with 429 RATE_LIMITED and Retry-After, then serves again', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => login(i === 0 ? 'louis-password' : 'wrong-password')));
    const limited = answers.filter((res) => res.status === 429);
    assert.ok(limited.length >= 1, `statuses: ${answers.map((res) => res.status).join(',')}`);
    for (const res of limited) {
      assert.equal(res.headers['retry-after'], '3');
      assert.equal(res.json().error.code, 'RATE_LIMITED');
      assert.ok(res.json().error.requestId);
    }
    assert.ok(answers.every((res) => [200, 401, 429].includes(res.status)));
    assert.equal((await login('louis-password')).status, 200);
  });

  it('answers an OIDC login beyond the bound in the OAuth error shape with Retry-After', async () => {
    const config = await discoverClient(ctl);
    const started = await Promise.all(Array.from({ length: 6 }, () => startLogin(ctl, config)));
    const answers = await Promise.all(started.map((s) => postLogin(ctl, s.authRequestId, 'louis', 'louis-password')));
    const limited = answers.filter((res) => res.status === 429);
    assert.ok(limited.length >= 1, `statuses: ${answers.map((res) => res.status).join(',')}`);
    for (const res of limited) {
      assert.equal(res.json().error, 'rate_limited');
      assert.equal(res.headers['retry-after'], '3');
    }
  });
});
