/**
 * Signing in at an external identity provider from the login page (issue 45, item 6; decision 0084), over HTTP
 * against a real provider on loopback: a second controller whose `/oidc` issuer serves discovery, the authorization
 * endpoint with PKCE, its login and the token endpoint. The buttons the page offers; the flow to the IdP and back to
 * the client with a code; TOTP after the IdP when the policy wants it; and every refusal with its sentence, its 4xx
 * and nothing created.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock } from '../../src/shared/clock.js';
import { testDialect } from '../helpers/database.js';
import { cookieHeader, idpSignerBody, signInAtIdp, startIdpPair, type IdpPair } from '../helpers/external-idp.js';
import { startJwksServer } from '../helpers/external-jwt.js';
import { createIdentity, updateIdentityRow, updatePolicyBody } from '../helpers/fixtures.js';
import { authPolicyBody, createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { discoverClient, followCallback, postForm, REDIRECT_URI, startLogin } from '../helpers/oidc.js';
import type * as client from 'openid-client';

const HTML = { accept: 'text/html' };
/** Where a signed-in browser is sent on: the refresh of the page that ends the redirect chain. */
const continuesTo = (text: string) => /<meta http-equiv="refresh" content="0;url=([^"]+)">/.exec(text)?.[1]?.replace(/&#38;/g, '&');
const problemOf = (text: string) => /role="alert" id="problem">([^<]*)</.exec(text)?.[1];
const buttonsOf = (text: string) => [...text.matchAll(/<a class="button" href="(\/oidc\/login\/ext-idp\?[^"]*)">Continue with ([^<]*)</g)].map((m) => ({ href: m[1]!.replace(/&#38;/g, '&'), name: m[2]! }));

describe(`login with an external identity provider (${testDialect})`, () => {
  const clock = manualClock(new Date());
  let pair: IdpPair;
  let admin: ManagementClient;
  let config: client.Configuration;
  let signer: string;
  let aliceHere: string;

  before(async () => {
    pair = await startIdpPair({ clock });
    const { ctl, idp } = pair;
    admin = managementClient(ctl, await ctl.adminToken());
    const alice = await createIdentity(idp.running.database, { name: 'alice', username: 'alice', password: 'alice-password-1' });
    await createIdentity(idp.running.database, { name: 'bob', username: 'bob', password: 'bob-password-1' });
    const carol = await createIdentity(idp.running.database, { name: 'carol', username: 'carol', password: 'carol-password-1' });
    const dave = await createIdentity(idp.running.database, { name: 'dave', username: 'dave', password: 'dave-password-1' });
    signer = await createdId(admin, '/external-jwt-signers', idpSignerBody(idp, 'Loopback IdP'));
    // Not offered: no externalAuthUrl; no clientId; disabled.
    await createdId(admin, '/external-jwt-signers', idpSignerBody(idp, 'No URL', { issuer: 'https://a.example.test', externalAuthUrl: null }));
    await createdId(admin, '/external-jwt-signers', idpSignerBody(idp, 'No client', { issuer: 'https://b.example.test', clientId: null }));
    await createdId(admin, '/external-jwt-signers', idpSignerBody(idp, 'Disabled', { issuer: 'https://c.example.test', enabled: false }));
    aliceHere = (await createIdentity(ctl.running.database, { name: 'alice-here' })).id;
    await updateIdentityRow(ctl.running.database, aliceHere, { external_id: alice.id });
    const totpBody = authPolicyBody('idp-then-totp');
    totpBody.primary.extJwt = { allowed: true, allowedSigners: [signer] };
    const totpPolicy = await createdId(admin, '/auth-policies', { ...totpBody, secondary: { requireTotp: true, requireExtJwt: null } });
    const carolHere = (await createIdentity(ctl.running.database, { name: 'carol-here', authPolicyId: totpPolicy })).id;
    await updateIdentityRow(ctl.running.database, carolHere, { external_id: carol.id });
    const daveHere = (await createIdentity(ctl.running.database, { name: 'dave-here' })).id;
    await updateIdentityRow(ctl.running.database, daveHere, { external_id: dave.id, disabled: true, disabled_at: new Date().toISOString() });
    config = await discoverClient(ctl);
  });
  after(async () => {
    await pair?.idp.close();
    await pair?.ctl.close();
  });

  const sessions = async () => Number((await pair.ctl.running.database.db.selectFrom('oidc_sessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const authRequests = async () => Number((await pair.ctl.running.database.db.selectFrom('oidc_auth_requests').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  /** The login page of a new auth request, its IdP buttons, and the start of the flow at the first one. */
  async function startAtIdp(signerName = 'Loopback IdP') {
    const started = await startLogin(pair.ctl, config);
    const page = await pair.ctl.fetch(started.location.toString(), { headers: HTML });
    const button = buttonsOf(page.text).find((b) => b.name === signerName);
    assert.ok(button, page.text);
    const res = await pair.ctl.fetch(button.href);
    assert.equal(res.status, 302, res.text);
    return { started, authorize: new URL(String(res.headers.location)), cookie: cookieHeader(res.headerValues('set-cookie')), setCookies: res.headerValues('set-cookie') };
  }

  const backAtController = (url: URL, cookie: string) => pair.ctl.fetch(`${url.pathname}${url.search}`, { headers: { ...HTML, cookie } });

  it('offers one button per enabled signer with an externalAuthUrl and a clientId, only while the default policy allows it', async () => {
    const started = await startLogin(pair.ctl, config);
    const page = async () => buttonsOf((await pair.ctl.fetch(started.location.toString(), { headers: HTML })).text).map((b) => b.name);
    assert.deepEqual(await page(), ['Loopback IdP']);
    const ctlDb = pair.ctl.running.database;
    await updatePolicyBody(ctlDb, 'default', (body) => (body.primary.extJwt.allowed = false));
    assert.deepEqual(await page(), [], 'ext-jwt not allowed: no button');
    await updatePolicyBody(ctlDb, 'default', (body) => {
      body.primary.extJwt.allowed = true;
      body.primary.extJwt.allowedSigners = ['some-other-signer'];
    });
    assert.deepEqual(await page(), [], 'the signer is not among allowedSigners: no button');
    await updatePolicyBody(ctlDb, 'default', (body) => (body.primary.extJwt.allowedSigners = [signer]));
    assert.deepEqual(await page(), ['Loopback IdP'], 'listed: the button is back');
    await updatePolicyBody(ctlDb, 'default', (body) => (body.primary.extJwt.allowedSigners = []));
  });

  it('sends the browser to the IdP with PKCE, the fixed callback, a fresh state, openid plus the signer scopes and its client id', async () => {
    const { authorize, setCookies } = await startAtIdp();
    assert.equal(`${authorize.origin}${authorize.pathname}`, `${pair.idp.baseUrl}/oidc/authorization`);
    const q = authorize.searchParams;
    assert.equal(q.get('redirect_uri'), pair.callbackUrl);
    assert.equal(q.get('client_id'), 'svc');
    assert.equal(q.get('scope'), 'openid email');
    assert.equal(q.get('response_type'), 'code');
    assert.equal(q.get('code_challenge_method'), 'S256');
    assert.match(q.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.match(q.get('state') ?? '', /^[A-Za-z0-9_-]{43}$/);
    const again = await startAtIdp();
    assert.notEqual(again.authorize.searchParams.get('state'), q.get('state'), 'each start has its own state');
    assert.equal(setCookies.length, 1);
    assert.match(setCookies[0]!, /^svc-ext-idp-[A-Za-z0-9_-]{16}=v1\.[^;]+; Path=\/oidc\/ext-idp\/; Max-Age=\d+; HttpOnly; Secure; SameSite=Lax$/);
  });

  it('signs in at the IdP and continues the auth request to the client with a code that redeems for the mapped identity', async () => {
    const { started, authorize, cookie } = await startAtIdp();
    const back = await signInAtIdp(pair.idp, authorize.toString(), 'alice', 'alice-password-1');
    assert.equal(`${back.origin}${back.pathname}`, pair.callbackUrl);
    const res = await backAtController(back, cookie);
    assert.equal(res.status, 200, res.text);
    const next = continuesTo(res.text);
    assert.match(next ?? '', /^\/oidc\/authorize\/callback\?id=/, res.text);
    assert.match(res.text, new RegExp(`<a class="button" href="${next!.replace(/[?&]/g, '.')}"`), 'a link for a browser that does not refresh');
    const toClient = new URL(String(await followCallback(pair.ctl, `${pair.ctl.baseUrl}${next}`)));
    assert.equal(`${toClient.origin}${toClient.pathname}`, REDIRECT_URI);
    assert.equal(toClient.searchParams.get('state'), started.state);
    const tokens = await postForm(pair.ctl, '/oidc/token', {
      grant_type: 'authorization_code',
      client_id: 'svc',
      code: toClient.searchParams.get('code')!,
      redirect_uri: REDIRECT_URI,
      code_verifier: started.verifier,
    });
    assert.equal(tokens.status, 200, tokens.text);
    const claims = JSON.parse(Buffer.from(tokens.json().access_token.split('.')[1], 'base64url').toString());
    assert.equal(claims.sub, aliceHere);
    assert.deepEqual(claims.amr, ['ext-jwt']);
  });

  it('asks for the TOTP code after the IdP when the identity’s policy requires it', async () => {
    const { authorize, cookie } = await startAtIdp();
    const res = await backAtController(await signInAtIdp(pair.idp, authorize.toString(), 'carol', 'carol-password-1'), cookie);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['totp-required'], 'true');
    assert.match(res.text, /<h1>Enter your authentication code<\/h1>/);
  });

  it('refuses a callback this browser did not start (no cookie, or another flow’s) and an altered state, creating nothing', async () => {
    const before = [await sessions(), await authRequests()];
    const { authorize, cookie } = await startAtIdp();
    const back = await signInAtIdp(pair.idp, authorize.toString(), 'alice', 'alice-password-1');
    const other = await startAtIdp();
    const altered = new URL(back);
    // The last character changed, to one it is not (a fixed 'A' left one state in 64 unaltered).
    const state = back.searchParams.get('state')!;
    altered.searchParams.set('state', `${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`);
    for (const [url, cookies] of [[back, ''], [back, other.cookie], [altered, cookie], [new URL(`${pair.callbackUrl}?code=x`), cookie]] as const) {
      const res = await backAtController(url, cookies);
      assert.equal(res.status, 400, res.text);
      assert.match(problemOf(res.text) ?? '', /^This sign-in with the identity provider is unknown to this browser, already used or expired\./);
      assert.doesNotMatch(res.text, /name="password"/, 'no sign-in to go back to');
    }
    assert.deepEqual([await sessions(), await authRequests()], before);
    // Positive control: the same callback with its own cookie signs in.
    assert.ok(continuesTo((await backAtController(back, cookie)).text));
  });

  it('refuses a callback used before, on the login page of its auth request', async () => {
    const { authorize, cookie } = await startAtIdp();
    const back = await signInAtIdp(pair.idp, authorize.toString(), 'alice', 'alice-password-1');
    assert.ok(continuesTo((await backAtController(back, cookie)).text));
    const again = await backAtController(back, cookie);
    assert.equal(again.status, 400, again.text);
    assert.match(problemOf(again.text) ?? '', /already used or expired/);
    assert.match(again.text, /name="password"/, 'the sign-in of the auth request is offered again');
  });

  it('shows the IdP’s error and description as text, never as markup, with 401', async () => {
    const { authorize, cookie } = await startAtIdp();
    const back = new URL(pair.callbackUrl);
    back.searchParams.set('state', authorize.searchParams.get('state')!);
    back.searchParams.set('error', 'access_denied');
    back.searchParams.set('error_description', '<img src=x onerror=alert(1)> nope');
    const res = await backAtController(back, cookie);
    assert.equal(res.status, 401, res.text);
    assert.doesNotMatch(res.text, /<img src=x/);
    assert.match(problemOf(res.text) ?? '', /^The identity provider did not sign you in \(access_denied: &#60;img src=x onerror=alert\(1\)&#62; nope\)\./);
  });

  it('refuses a token the signer does not verify (another audience), and an IdP account with no identity or a disabled one alike', async () => {
    await createdId(admin, '/external-jwt-signers', idpSignerBody(pair.idp, 'Wrong audience', { issuer: `${pair.idp.baseUrl}/oidc/`, audience: 'not-svc' }));
    const before = [await sessions(), await authRequests()];
    const wrong = await startAtIdp('Wrong audience');
    const res = await backAtController(await signInAtIdp(pair.idp, wrong.authorize.toString(), 'alice', 'alice-password-1'), wrong.cookie);
    assert.equal(res.status, 401, res.text);
    assert.match(problemOf(res.text) ?? '', /^The answer of the identity provider could not be verified\./);
    const answers = [];
    for (const [user, password] of [['bob', 'bob-password-1'], ['dave', 'dave-password-1']]) {
      const flow = await startAtIdp();
      const refused = await backAtController(await signInAtIdp(pair.idp, flow.authorize.toString(), user!, password!), flow.cookie);
      answers.push({ status: refused.status, problem: problemOf(refused.text) });
    }
    assert.equal(new Set(answers.map((a) => JSON.stringify(a))).size, 1, JSON.stringify(answers));
    assert.equal(answers[0]!.status, 401);
    assert.match(answers[0]!.problem!, /^Your account at the identity provider may not sign in to this network\./);
    assert.deepEqual([await sessions(), await authRequests()], before);
  });

  it('refuses to start with a signer that is not offered, on the login page, with 400', async () => {
    const started = await startLogin(pair.ctl, config);
    const res = await pair.ctl.fetch(`/oidc/login/ext-idp?${new URLSearchParams({ authRequestID: started.authRequestId, signer: 'not-a-signer' })}`, { headers: HTML });
    assert.equal(res.status, 400, res.text);
    assert.match(problemOf(res.text) ?? '', /^That identity provider is not offered/);
    assert.match(res.text, /name="password"/);
  });

  it('refuses an IdP whose discovery names no endpoints, or is too large, and one whose token endpoint refuses the code; caches a good discovery', async () => {
    const server = await startJwksServer(pair.ctl.pki);
    const bad = await createdId(admin, '/external-jwt-signers', idpSignerBody(pair.idp, 'Plain server', { issuer: server.origin, externalAuthUrl: server.origin }));
    const discovery = (document: unknown) => server.route('/.well-known/openid-configuration', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document)));
    const startAt = async () => {
      const started = await startLogin(pair.ctl, config);
      return pair.ctl.fetch(`/oidc/login/ext-idp?${new URLSearchParams({ authRequestID: started.authRequestId, signer: bad })}`, { headers: HTML });
    };
    try {
      for (const document of [{ issuer: server.origin }, { authorization_endpoint: 'javascript:alert(1)', token_endpoint: `${server.origin}/token` }, { padding: 'x'.repeat(300_000) }]) {
        discovery(document);
        const res = await startAt();
        assert.equal(res.status, 401, res.text);
        assert.match(problemOf(res.text) ?? '', /^The identity provider cannot be reached right now\./);
      }
      discovery({ authorization_endpoint: `${server.origin}/authorize`, token_endpoint: `${server.origin}/token` });
      server.route('/token', (_req, res) => res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}'));
      const first = await startAt();
      assert.equal(first.status, 302, first.text);
      assert.equal((await startAt()).status, 302);
      assert.equal(server.hits.get('/.well-known/openid-configuration'), 4, 'the good document was fetched once, then cached');
      const state = new URL(String(first.headers.location)).searchParams.get('state')!;
      const refused = await backAtController(new URL(`${pair.callbackUrl}?${new URLSearchParams({ state, code: 'some-code' })}`), cookieHeader(first.headerValues('set-cookie')));
      assert.equal(refused.status, 401, refused.text);
      assert.match(problemOf(refused.text) ?? '', /^The identity provider did not sign you in \(the code was not accepted\)\./);
      assert.equal(server.hits.get('/token'), 1);
    } finally {
      await admin.del(`/external-jwt-signers/${bad}`);
      await server.close();
    }
  });

  it('refuses a callback once its auth request has expired', async () => {
    const { authorize, cookie } = await startAtIdp();
    const back = await signInAtIdp(pair.idp, authorize.toString(), 'alice', 'alice-password-1');
    clock.advance(11 * 60_000);
    const res = await backAtController(back, cookie);
    assert.equal(res.status, 400, res.text);
    assert.match(problemOf(res.text) ?? '', /already used or expired/);
  });
});
