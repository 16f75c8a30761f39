/**
 * TOTP inside the OIDC login, end to end (spec: OIDC authorization request states; TOTP enrollment inside the OIDC
 * flow; OIDC provider endpoints; Errors): a primary login leaves the request partially authenticated while TOTP is
 * outstanding, `/oidc/login/totp` answers it with a real code (or a recovery code) and only then is a code issued;
 * wrong, malformed, replayed and expired codes are refused with 400 and change nothing; five wrong codes lock TOTP
 * for five minutes; an identity whose policy requires TOTP enrolls without leaving the login. Codes are computed
 * with the independent otpauth library from the provisioning URL the controller hands out; tokens are redeemed with
 * openid-client. A manual clock moves time across TOTP steps, the lockout and code expiry without sleeping.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { manualClock } from '../../src/shared/clock.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createAuthPolicy, createIdentity, updateIdentityRow } from '../helpers/fixtures.js';
import { caFetch, discoverClient, followCallback, postForm, postLogin, REDIRECT_URI, startLogin, type StartedLogin } from '../helpers/oidc.js';
import { authRequestKey } from '../../src/services/oidc-provider/oidc-auth-request-seal.js';
import { REFRESH_REUSE_GRACE_MS } from '../../src/services/oidc-provider/grants/refresh-token.js';
import { totpCode, wrongTotpCode } from '../helpers/totp.js';

const STEP_MS = 30_000;

describe(`OIDC login with TOTP (${testDialect})`, () => {
  const clock = manualClock(new Date());
  let ctl: TestController;
  let config: client.Configuration;
  let issuer: string;
  let totpPolicy: string;
  let extJwtPolicy: string;
  let userCount = 0;

  before(async () => {
    ctl = await startTestController({ clock });
    config = await discoverClient(ctl);
    issuer = `${ctl.baseUrl}/oidc`;
    totpPolicy = await createAuthPolicy(ctl.running.database, (body) => (body.secondary.requireTotp = true));
    extJwtPolicy = await createAuthPolicy(ctl.running.database, (body) => (body.secondary.requireExtJwt = 'some-signer-id'));
  });
  after(async () => ctl.close());

  const db = () => ctl.running.database.db;
  const totpQuery = () => ({ typeId: 'MFA', format: 'alphaNumeric', httpMethod: 'POST', httpUrl: `${issuer}/login/totp`, minLength: 6, maxLength: 6, provider: 'svc' });
  const storedRequest = (id: string) => db().selectFrom('oidc_auth_requests').selectAll().where('id', '=', authRequestKey(id)).executeTakeFirstOrThrow();
  const storedEnrollment = (identityId: string) => db().selectFrom('mfa_enrollments').selectAll().where('identity_id', '=', identityId).executeTakeFirst();
  /** Moves to the next TOTP step, so a code of the new moment is not a replay of the last one accepted. */
  const nextStep = () => clock.advance(STEP_MS);

  /** A new identity with a password (each test has its own, so replay and lockout state never leak between tests). */
  async function newUser(options: { authPolicyId?: string } = {}) {
    const name = `totp-user-${++userCount}`;
    const identity = await createIdentity(ctl.running.database, { name, username: name, password: `${name}-password`, ...options });
    return { ...identity, username: name, password: `${name}-password` };
  }

  /** Enrolls and verifies TOTP through the client API (legacy session), then moves to the next step. */
  async function enrollThroughClientApi(user: { username: string; password: string }) {
    const login = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: user.username, password: user.password } });
    assert.equal(login.status, 200, login.text);
    const session = { 'svc-session': String(login.headers['svc-session']) };
    const started = await ctl.fetch('/edge/client/v1/current-identity/mfa', { method: 'POST', headers: session, body: {} });
    assert.equal(started.status, 201, started.text);
    const { provisioningUrl, recoveryCodes } = started.json().data as { provisioningUrl: string; recoveryCodes: string[] };
    const verified = await ctl.fetch('/edge/client/v1/current-identity/mfa/verify', { method: 'POST', headers: session, body: { code: totpCode(provisioningUrl, clock.now()) } });
    assert.equal(verified.status, 200, verified.text);
    nextStep();
    return { provisioningUrl, recoveryCodes };
  }

  /** A user with verified TOTP whose policy does not require it. */
  async function enrolledUser(options: { authPolicyId?: string } = {}) {
    const user = await newUser();
    const mfa = await enrollThroughClientApi(user);
    if (options.authPolicyId) await updateIdentityRow(ctl.running.database, user.id, { auth_policy_id: options.authPolicyId });
    return { ...user, ...mfa };
  }

  /** Authorization request and password login; the request is then partially authenticated (asserted by callers). */
  async function primaryLogin(user: { username: string; password: string }) {
    const started = await startLogin(ctl, config);
    const res = await postLogin(ctl, started.authRequestId, user.username, user.password);
    return { started, res };
  }

  const answerTotp = (authRequestId: string, code: string | undefined) =>
    ctl.fetch('/oidc/login/totp', { method: 'POST', body: code === undefined ? { id: authRequestId } : { id: authRequestId, code } });
  const enroll = (authRequestId: string) => ctl.fetch('/oidc/login/totp/enroll', { method: 'POST', body: { authRequestId } });
  const cancelEnrollment = (authRequestId: string) => ctl.fetch('/oidc/login/totp/enroll', { method: 'DELETE', body: { authRequestId } });
  const verifyEnrollment = (authRequestId: string, code: string) => ctl.fetch('/oidc/login/totp/enroll/verify', { method: 'POST', body: { authRequestId, code } });

  /** openid-client believing the controller's (manual) clock, so it accepts tokens issued at that moment. */
  async function clientAtControllerTime(): Promise<client.Configuration> {
    const fetchImpl = caFetch(ctl.ca) as unknown as client.CustomFetch;
    const skew = Math.round((clock.now().getTime() - Date.now()) / 1000);
    const skewed = await client.discovery(new URL(issuer), 'svc', { [client.clockSkew]: skew }, client.None(), { [client.customFetch]: fetchImpl });
    skewed[client.customFetch] = fetchImpl;
    return skewed;
  }

  /** Redeems the code of a callback with openid-client (state, nonce and PKCE checked). */
  async function redeem(started: StartedLogin, location: string | string[] | undefined) {
    const skewed = await clientAtControllerTime();
    return client.authorizationCodeGrant(skewed, new URL(String(location)), { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce });
  }

  /** Asserts the request is still partially authenticated with TOTP outstanding and has no code. */
  async function assertStillPartial(authRequestId: string) {
    const stored = await storedRequest(authRequestId);
    assert.equal(stored.status, 'partially_authenticated');
    assert.equal(stored.code_hash, null);
    assert.equal(stored.code_expires_at, null);
    assert.deepEqual(JSON.parse(stored.outstanding_factors), [{ kind: 'totp' }]);
  }

  async function assertCodeRedirect(res: { status: number; headers: Record<string, unknown>; text: string }, started: StartedLogin) {
    assert.equal(res.status, 302, res.text);
    const callback = new URL(String(await followCallback(ctl, res.headers.location as string | undefined)));
    assert.equal(`${callback.origin}${callback.pathname}`, REDIRECT_URI);
    assert.ok(callback.searchParams.get('code'));
    assert.equal(callback.searchParams.get('state'), started.state);
    assert.equal(callback.searchParams.get('iss'), issuer);
    return callback.toString();
  }

  function assertInvalidCode(res: { status: number; text: string; json(): any }) {
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json().error, 'mfa_invalid_token');
    assert.match(res.json().error_description, /not valid|must be|not accepted/);
  }

  describe('a browser (Accept: text/html)', () => {
    it('gets the TOTP form after its password, the form again with the reason for a wrong code, and the redirect for a valid one', async () => {
      const user = await enrolledUser();
      const started = await startLogin(ctl, config);
      const html = { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' };
      const login = await ctl.fetch('/oidc/login/password', {
        method: 'POST',
        headers: html,
        body: new URLSearchParams({ authRequestId: started.authRequestId, username: user.username, password: user.password }).toString(),
      });
      assert.equal(login.status, 200, login.text);
      assert.match(String(login.headers['content-type']), /text\/html/);
      assert.match(login.text, /<form method="post" action="\/oidc\/login\/totp">/);
      assert.match(login.text, new RegExp(`name="id" value="${started.authRequestId}"`));
      const page = await ctl.fetch(`/oidc/login/username?authRequestID=${started.authRequestId}`, { headers: { accept: 'text/html' } });
      assert.match(page.text, /action="\/oidc\/login\/totp"/, 'the login URL shows the TOTP form once the password is in');
      const post = (code: string) => ctl.fetch('/oidc/login/totp', { method: 'POST', headers: html, body: new URLSearchParams({ id: started.authRequestId, code }).toString() });
      const wrong = await post(wrongTotpCode(user.provisioningUrl, clock.now()));
      assert.equal(wrong.status, 400);
      assert.match(wrong.text, /role="alert" id="problem">That code was not right/);
      clock.advance(30_000);
      const ok = await post(totpCode(user.provisioningUrl, clock.now()));
      assert.equal(ok.status, 302, ok.text);
      assert.ok(new URL(String(await followCallback(ctl, ok.headers.location))).searchParams.get('code'));
    });
  });

  describe('an identity with verified TOTP', () => {
    it('answers the password login with 200, the TOTP auth query and totp-required, and issues no code', async () => {
      const user = await enrolledUser();
      const { started, res } = await primaryLogin(user);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.location, undefined);
      assert.equal(res.headers['totp-required'], 'true');
      assert.deepEqual(res.json(), { authRequestId: started.authRequestId, authQueries: [totpQuery()] });
      await assertStillPartial(started.authRequestId);
      // No code exists, so nothing can reach the token endpoint or the Edge APIs (spec: partial authentication).
      const token = await postForm(ctl, '/oidc/token', { grant_type: 'authorization_code', client_id: 'svc', redirect_uri: REDIRECT_URI, code: started.authRequestId, code_verifier: started.verifier });
      assert.equal(token.status, 400);
      assert.equal(token.json().error, 'invalid_grant');
      assert.equal((await ctl.fetch('/edge/client/v1/current-identity')).status, 401);
    });

    it('redirects with code, state and iss after a valid code in a JSON body; the tokens carry amr password and totp', async () => {
      const user = await enrolledUser();
      const { started } = await primaryLogin(user);
      const res = await answerTotp(started.authRequestId, totpCode(user.provisioningUrl, clock.now()));
      const codeUrl = await assertCodeRedirect(res, started);
      assert.equal((await storedRequest(started.authRequestId)).status, 'code_issued');
      const tokens = await redeem(started, codeUrl);
      assert.deepEqual([...(decodeJwt(tokens.id_token!).amr as string[])].sort(), ['password', 'totp']);
      assert.deepEqual([...(decodeJwt(tokens.access_token).amr as string[])].sort(), ['password', 'totp']);
      assert.equal(decodeJwt(tokens.access_token).sub, user.id);
    });

    it('accepts the code in a form body', async () => {
      const user = await enrolledUser();
      const { started } = await primaryLogin(user);
      const res = await postForm(ctl, '/oidc/login/totp', { id: started.authRequestId, code: totpCode(user.provisioningUrl, clock.now()) });
      const codeUrl = await assertCodeRedirect(res, started);
      const tokens = await redeem(started, codeUrl);
      assert.ok((decodeJwt(tokens.id_token!).amr as string[]).includes('totp'));
    });

    it('refuses a wrong code with 400 saying it is invalid, keeps the request partial, and still accepts the right code', async () => {
      const user = await enrolledUser();
      const { started } = await primaryLogin(user);
      const res = await answerTotp(started.authRequestId, wrongTotpCode(user.provisioningUrl, clock.now()));
      assertInvalidCode(res);
      assert.match(res.json().error_description, /not valid/);
      assert.equal(res.headers.location, undefined);
      await assertStillPartial(started.authRequestId);
      assert.equal((await storedEnrollment(user.id))?.failed_attempts, 1);
      await assertCodeRedirect(await answerTotp(started.authRequestId, totpCode(user.provisioningUrl, clock.now())), started);
    });

    it('refuses malformed and missing codes with 400 without counting them as failures', async () => {
      const user = await enrolledUser();
      const { started } = await primaryLogin(user);
      const valid = totpCode(user.provisioningUrl, clock.now());
      for (const code of [valid.slice(0, 5), `${valid}0`, '12ab56', '12345!', '', '      ', undefined]) {
        const res = await answerTotp(started.authRequestId, code);
        assertInvalidCode(res);
        await assertStillPartial(started.authRequestId);
      }
      assert.equal((await storedEnrollment(user.id))?.failed_attempts, 0);
      await assertCodeRedirect(await answerTotp(started.authRequestId, valid), started);
    });

    it('refuses a code already used by another login in the same step, saying so', async () => {
      const user = await enrolledUser();
      const code = totpCode(user.provisioningUrl, clock.now());
      const first = await primaryLogin(user);
      await assertCodeRedirect(await answerTotp(first.started.authRequestId, code), first.started);
      const second = await primaryLogin(user);
      const replay = await answerTotp(second.started.authRequestId, code);
      assert.equal(replay.status, 400, replay.text);
      assert.equal(replay.json().error, 'mfa_invalid_token');
      assert.match(replay.json().error_description, /already been used/);
      await assertStillPartial(second.started.authRequestId);
      nextStep();
      await assertCodeRedirect(await answerTotp(second.started.authRequestId, totpCode(user.provisioningUrl, clock.now())), second.started);
    });

    it('lets only one of two logins racing with the same code through', async () => {
      const user = await enrolledUser();
      const code = totpCode(user.provisioningUrl, clock.now());
      const a = await primaryLogin(user);
      const b = await primaryLogin(user);
      const answers = await Promise.all([answerTotp(a.started.authRequestId, code), answerTotp(b.started.authRequestId, code)]);
      assert.deepEqual(answers.map((res) => res.status).sort(), [302, 400]);
      const statuses = await Promise.all([a, b].map(async ({ started }) => (await storedRequest(started.authRequestId)).status));
      // The winner is fully authenticated, on its way to the callback that issues the code.
      assert.deepEqual(statuses.sort(), ['authenticated', 'partially_authenticated']);
    });

    it('refuses a code from two or more steps ago as invalid', async () => {
      const user = await enrolledUser();
      const { started } = await primaryLogin(user);
      const old = totpCode(user.provisioningUrl, clock.now());
      clock.advance(2 * STEP_MS + 5_000);
      assertInvalidCode(await answerTotp(started.authRequestId, old));
      await assertStillPartial(started.authRequestId);
      await assertCodeRedirect(await answerTotp(started.authRequestId, totpCode(user.provisioningUrl, clock.now())), started);
    });

    it('accepts the code of the previous step (clock skew window)', async () => {
      const user = await enrolledUser();
      // The enrollment used the step before this one; one step later that step's neighbour is unused.
      nextStep();
      const { started } = await primaryLogin(user);
      const previous = totpCode(user.provisioningUrl, new Date(clock.now().getTime() - STEP_MS));
      await assertCodeRedirect(await answerTotp(started.authRequestId, previous), started);
    });

    it('accepts a recovery code once (in any letter case) and refuses it the second time', async () => {
      const user = await enrolledUser();
      const [recovery, other] = user.recoveryCodes as [string, string];
      const first = await primaryLogin(user);
      const res = await answerTotp(first.started.authRequestId, recovery);
      const codeUrl = await assertCodeRedirect(res, first.started);
      const tokens = await redeem(first.started, codeUrl);
      assert.ok((decodeJwt(tokens.id_token!).amr as string[]).includes('totp'));

      const second = await primaryLogin(user);
      assertInvalidCode(await answerTotp(second.started.authRequestId, recovery));
      await assertStillPartial(second.started.authRequestId);
      await assertCodeRedirect(await answerTotp(second.started.authRequestId, other.toLowerCase()), second.started);
    });

    it('locks TOTP after five wrong codes: 429 mfa_locked even for a valid code, until five minutes have passed', async () => {
      const user = await enrolledUser();
      const { started } = await primaryLogin(user);
      for (let attempt = 1; attempt <= 5; attempt++) {
        const res = await answerTotp(started.authRequestId, wrongTotpCode(user.provisioningUrl, clock.now()));
        assertInvalidCode(res);
        if (attempt === 5) assert.match(res.json().error_description, /locked/);
      }
      const locked = await answerTotp(started.authRequestId, totpCode(user.provisioningUrl, clock.now()));
      assert.equal(locked.status, 429, locked.text);
      assert.equal(locked.json().error, 'mfa_locked');
      assert.equal(typeof locked.json().error_description, 'string');
      await assertStillPartial(started.authRequestId);
      // A recovery code is refused while locked too.
      assert.equal((await answerTotp(started.authRequestId, user.recoveryCodes[0]!)).status, 429);

      clock.advance(4 * 60_000);
      assert.equal((await answerTotp(started.authRequestId, totpCode(user.provisioningUrl, clock.now()))).status, 429);
      clock.advance(60_000 + 1_000);
      await assertCodeRedirect(await answerTotp(started.authRequestId, totpCode(user.provisioningUrl, clock.now())), started);
    });

    it('answers TOTP but stays partial while a secondary external JWT is still outstanding', async () => {
      const user = await enrolledUser({ authPolicyId: extJwtPolicy });
      const { started, res } = await primaryLogin(user);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers['totp-required'], 'true');
      assert.deepEqual(
        res.json().authQueries.map((q: { typeId: string }) => q.typeId),
        ['MFA', 'EXT-JWT'],
      );
      const answered = await answerTotp(started.authRequestId, totpCode(user.provisioningUrl, clock.now()));
      assert.equal(answered.status, 200, answered.text);
      assert.equal(answered.headers.location, undefined);
      assert.equal(answered.headers['totp-required'], undefined);
      assert.deepEqual(answered.json().authQueries, [{ typeId: 'EXT-JWT', id: 'some-signer-id', httpMethod: 'POST', httpUrl: `${issuer}/login/ext-jwt`, provider: 'svc' }]);
      const stored = await storedRequest(started.authRequestId);
      assert.equal(stored.status, 'partially_authenticated');
      assert.equal(stored.code_hash, null);
      assert.deepEqual(JSON.parse(stored.amr), ['password', 'totp']);
      assert.deepEqual(JSON.parse(stored.outstanding_factors), [{ kind: 'ext-jwt', signerId: 'some-signer-id' }]);
      // Answered once, TOTP is no longer outstanding.
      nextStep();
      const again = await answerTotp(started.authRequestId, totpCode(user.provisioningUrl, clock.now()));
      assert.equal(again.status, 400);
      assert.equal(again.json().error, 'invalid_request');
    });

    it('refuses to start another enrollment during the login, and to drop the verified one from a half-done login (409)', async () => {
      const user = await enrolledUser();
      const { started } = await primaryLogin(user);
      const res = await enroll(started.authRequestId);
      assert.equal(res.status, 409, res.text);
      assert.equal(res.json().error, 'mfa_exists');
      const cancel = await cancelEnrollment(started.authRequestId);
      assert.equal(cancel.status, 409, cancel.text);
      assert.equal(cancel.json().error, 'mfa_exists');
      assert.match(cancel.json().error_description, /full session/);
      assert.equal((await storedEnrollment(user.id))?.is_verified ? true : false, true);
      const verify = await verifyEnrollment(started.authRequestId, totpCode(user.provisioningUrl, clock.now()));
      assert.equal(verify.status, 404, verify.text);
      assert.equal(verify.json().error, 'mfa_enrollment_not_started');
      await assertStillPartial(started.authRequestId);
    });

    it('refuses the TOTP answer once the identity has been disabled during the login', async () => {
      const user = await enrolledUser();
      const { started } = await primaryLogin(user);
      await updateIdentityRow(ctl.running.database, user.id, { disabled: true, disabled_at: clock.now().toISOString() });
      const res = await answerTotp(started.authRequestId, totpCode(user.provisioningUrl, clock.now()));
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json().error, 'access_denied');
      await assertStillPartial(started.authRequestId);
    });
  });

  describe('requests TOTP cannot answer', () => {
    it('refuses /login/totp before the primary login with invalid_request, leaving the request started', async () => {
      const user = await enrolledUser();
      const started = await startLogin(ctl, config);
      for (const res of [
        await answerTotp(started.authRequestId, totpCode(user.provisioningUrl, clock.now())),
        await enroll(started.authRequestId),
        await verifyEnrollment(started.authRequestId, '123456'),
        await cancelEnrollment(started.authRequestId),
      ]) {
        assert.equal(res.status, 400, res.text);
        assert.equal(res.json().error, 'invalid_request');
        assert.match(res.json().error_description, /no primary login/);
      }
      // A started request lives only in its sealed id: nothing was stored, and it still awaits its primary login.
      assert.equal(await db().selectFrom('oidc_auth_requests').select('id').where('id', '=', authRequestKey(started.authRequestId)).executeTakeFirst(), undefined);
      const queries = await ctl.fetch(`/oidc/login/auth-queries?id=${encodeURIComponent(started.authRequestId)}`);
      assert.equal(queries.status, 200, queries.text);
      assert.deepEqual(queries.json().authQueries, []);
    });

    it('refuses an unknown or missing auth request id with invalid_request', async () => {
      for (const res of [
        await answerTotp('00000000-0000-4000-8000-000000000000', '123456'),
        await ctl.fetch('/oidc/login/totp', { method: 'POST', body: { code: '123456' } }),
        await enroll('no-such-request'),
        await verifyEnrollment('no-such-request', '123456'),
      ]) {
        assert.equal(res.status, 400, res.text);
        assert.equal(res.json().error, 'invalid_request');
      }
    });

    it('refuses /login/totp once the request has its code', async () => {
      const user = await enrolledUser();
      const { started } = await primaryLogin(user);
      await assertCodeRedirect(await answerTotp(started.authRequestId, totpCode(user.provisioningUrl, clock.now())), started);
      nextStep();
      const again = await answerTotp(started.authRequestId, totpCode(user.provisioningUrl, clock.now()));
      assert.equal(again.status, 400, again.text);
      assert.equal(again.json().error, 'invalid_request');
      assert.equal(again.headers.location, undefined);
    });

    it('refuses /login/totp when only a secondary external JWT is outstanding', async () => {
      const user = await newUser({ authPolicyId: extJwtPolicy });
      const { started, res } = await primaryLogin(user);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers['totp-required'], undefined);
      const answered = await answerTotp(started.authRequestId, '123456');
      assert.equal(answered.status, 400, answered.text);
      assert.equal(answered.json().error, 'invalid_request');
      assert.match(answered.json().error_description, /not outstanding/);
      const stored = await storedRequest(started.authRequestId);
      assert.equal(stored.status, 'partially_authenticated');
      assert.equal(stored.code_hash, null);
      assert.deepEqual(JSON.parse(stored.outstanding_factors), [{ kind: 'ext-jwt', signerId: 'some-signer-id' }]);
    });

    it('refuses to enroll TOTP during a login that does not need TOTP (only the password proven so far)', async () => {
      const user = await newUser({ authPolicyId: extJwtPolicy });
      const { started } = await primaryLogin(user);
      for (const res of [await enroll(started.authRequestId), await verifyEnrollment(started.authRequestId, '123456'), await cancelEnrollment(started.authRequestId)]) {
        assert.equal(res.status, 400, res.text);
        assert.equal(res.json().error, 'invalid_request');
        assert.match(res.json().error_description, /not outstanding/);
      }
      assert.equal(await storedEnrollment(user.id), undefined);
      const stored = await storedRequest(started.authRequestId);
      assert.equal(stored.status, 'partially_authenticated');
      assert.equal(stored.code_hash, null);
    });
  });

  describe('enrollment inside the login (policy requires TOTP)', () => {
    it('enrolls, cancels, enrolls again, verifies and gets a code; later logins need TOTP', async () => {
      const user = await newUser({ authPolicyId: totpPolicy });
      const { started, res } = await primaryLogin(user);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers['totp-required'], 'true');
      assert.deepEqual(res.json().authQueries, [totpQuery()]);

      const notEnrolled = await answerTotp(started.authRequestId, '123456');
      assert.equal(notEnrolled.status, 409, notEnrolled.text);
      assert.equal(notEnrolled.json().error, 'mfa_not_enrolled');

      const first = await enroll(started.authRequestId);
      assert.equal(first.status, 201, first.text);
      assert.equal(first.headers['cache-control'], 'no-store');
      const enrollment = first.json();
      assert.equal(enrollment.isVerified, false);
      const url = new URL(enrollment.provisioningUrl);
      assert.equal(url.protocol, 'otpauth:');
      assert.match(enrollment.provisioningUrl, new RegExp(`^otpauth://totp/${user.name}\\?issuer=127\\.0\\.0\\.1&secret=[A-Z2-7]{32}$`));
      assert.equal(enrollment.recoveryCodes.length, 20);
      for (const code of enrollment.recoveryCodes) assert.match(code, /^[A-Z2-7]{6}$/);
      assert.equal(new Set(enrollment.recoveryCodes).size, 20);
      await assertStillPartial(started.authRequestId);

      const second = await enroll(started.authRequestId);
      assert.equal(second.status, 409, second.text);
      assert.equal(second.json().error, 'mfa_exists');

      const cancelled = await cancelEnrollment(started.authRequestId);
      assert.equal(cancelled.status, 200, cancelled.text);
      assert.equal(await storedEnrollment(user.id), undefined);
      await assertStillPartial(started.authRequestId);

      const fresh = await enroll(started.authRequestId);
      assert.equal(fresh.status, 201, fresh.text);
      const provisioningUrl: string = fresh.json().provisioningUrl;
      assert.notEqual(new URL(provisioningUrl).searchParams.get('secret'), url.searchParams.get('secret'));

      const wrong = await verifyEnrollment(started.authRequestId, wrongTotpCode(provisioningUrl, clock.now()));
      assertInvalidCode(wrong);
      assert.equal((await storedEnrollment(user.id))?.is_verified ? true : false, false);
      await assertStillPartial(started.authRequestId);

      // The abandoned enrollment's secret is worth nothing.
      const stale = await verifyEnrollment(started.authRequestId, totpCode(enrollment.provisioningUrl, clock.now()));
      assertInvalidCode(stale);

      const verified = await verifyEnrollment(started.authRequestId, totpCode(provisioningUrl, clock.now()));
      const codeUrl = await assertCodeRedirect(verified, started);
      assert.equal((await storedEnrollment(user.id))?.is_verified ? true : false, true);
      const tokens = await redeem(started, codeUrl);
      assert.deepEqual([...(decodeJwt(tokens.id_token!).amr as string[])].sort(), ['password', 'totp']);
      assert.deepEqual([...(decodeJwt(tokens.access_token).amr as string[])].sort(), ['password', 'totp']);

      // Enrolled: the next login needs TOTP, answered at /login/totp; enrolling again is refused.
      nextStep();
      const later = await primaryLogin(user);
      assert.equal(later.res.status, 200, later.res.text);
      assert.equal(later.res.headers['totp-required'], 'true');
      assert.equal((await enroll(later.started.authRequestId)).status, 409);
      await assertCodeRedirect(await answerTotp(later.started.authRequestId, totpCode(provisioningUrl, clock.now())), later.started);
    });

    it('accepts the enrollment endpoints with form bodies', async () => {
      const user = await newUser({ authPolicyId: totpPolicy });
      const { started } = await primaryLogin(user);
      const started201 = await postForm(ctl, '/oidc/login/totp/enroll', { authRequestId: started.authRequestId });
      assert.equal(started201.status, 201, started201.text);
      const verified = await postForm(ctl, '/oidc/login/totp/enroll/verify', { authRequestId: started.authRequestId, code: totpCode(started201.json().provisioningUrl, clock.now()) });
      await assertCodeRedirect(verified, started);
    });

    it('refuses verification without a pending enrollment with 404', async () => {
      const user = await newUser({ authPolicyId: totpPolicy });
      const { started } = await primaryLogin(user);
      const res = await verifyEnrollment(started.authRequestId, '123456');
      assert.equal(res.status, 404, res.text);
      assert.equal(res.json().error, 'mfa_enrollment_not_started');
      await assertStillPartial(started.authRequestId);
    });

    it('refuses a recovery code as the enrollment verification code', async () => {
      const user = await newUser({ authPolicyId: totpPolicy });
      const { started } = await primaryLogin(user);
      const enrollment = (await enroll(started.authRequestId)).json();
      assertInvalidCode(await verifyEnrollment(started.authRequestId, enrollment.recoveryCodes[0]));
      assert.equal((await storedEnrollment(user.id))?.is_verified ? true : false, false);
      await assertStillPartial(started.authRequestId);
    });
  });

  it('lists the TOTP login endpoints in svc_endpoints of both discovery documents', async () => {
    for (const path of ['/.well-known/openid-configuration', '/oidc/.well-known/openid-configuration']) {
      const res = await ctl.fetch(path);
      assert.equal(res.status, 200);
      const endpoints = res.json().svc_endpoints;
      assert.equal(endpoints.totp, `${issuer}/login/totp`);
      assert.equal(endpoints.totp_enroll, `${issuer}/login/totp/enroll`);
      assert.equal(endpoints.totp_enroll_verify, `${issuer}/login/totp/enroll/verify`);
    }
  });

  it('completes a login through the TOTP step with openid-client, then refreshes', async () => {
    const user = await enrolledUser();
    const skewed = await clientAtControllerTime();
    const started = await startLogin(ctl, skewed);
    const login = await postLogin(ctl, started.authRequestId, user.username, user.password);
    assert.equal(login.status, 200, login.text);
    const answered = await answerTotp(started.authRequestId, totpCode(user.provisioningUrl, clock.now()));
    const codeUrl = await assertCodeRedirect(answered, started);
    const tokens = await client.authorizationCodeGrant(skewed, new URL(String(codeUrl)), {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    assert.ok(tokens.refresh_token);
    assert.equal(tokens.claims()?.sub, user.id);
    const me = await ctl.fetch('/edge/client/v1/current-identity', { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.json().data.id, user.id);

    const refreshed = await client.refreshTokenGrant(skewed, tokens.refresh_token!);
    assert.ok(refreshed.refresh_token);
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
    assert.deepEqual([...(decodeJwt(refreshed.access_token).amr as string[])].sort(), ['password', 'totp']);
    const again = await ctl.fetch('/edge/client/v1/current-identity', { headers: { authorization: `Bearer ${refreshed.access_token}` } });
    assert.equal(again.status, 200, again.text);
    // Past the duplicate-request grace window, the rotated token presented again is reuse.
    clock.advance(REFRESH_REUSE_GRACE_MS + 1);
    await assert.rejects(client.refreshTokenGrant(skewed, tokens.refresh_token!), (error: { error?: string }) => error.error === 'invalid_grant');
  });
});
