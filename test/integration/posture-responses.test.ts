/**
 * Posture responses on the client API (issue 15, item 6): each type stored for the caller's API session, legacy or
 * OIDC, and evaluated by the one evaluator against the posture checks; MFA checks passing after a TOTP answer, for
 * their timeout, and until the grace after a wake or unlock ends; every malformed or mismatched response refused
 * with 400 naming its field and nothing stored; and the responses gone with their session.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { storedBool, testDialect } from '../helpers/database.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { createIdentity } from '../helpers/fixtures.js';
import { followCallback, postForm, REDIRECT_URI } from '../helpers/oidc.js';
import { totpCode, totpTestClock } from '../helpers/totp.js';
import type { PostureCheck } from '../../src/domain/posture-check.js';

const CLIENT = '/edge/client/v1';

describe(`posture responses (${testDialect})`, () => {
  const clock = totpTestClock();
  let ctl: TestController;
  let admin: ManagementClient;
  const ids: Record<string, string> = {};
  before(async () => {
    ctl = await startTestController({ clock, inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    const bodies: Record<string, Record<string, unknown>> = {
      OS: { typeId: 'OS', operatingSystems: [{ type: 'Windows', versions: ['>=10.0.19041 <11.0.0'] }, { type: 'Linux', versions: [] }] },
      MAC: { typeId: 'MAC', macAddresses: ['00:1A:2b:3c:4d:5e'] },
      DOMAIN: { typeId: 'DOMAIN', domains: ['Corp.Example'] },
      PROCESS: { typeId: 'PROCESS', process: { osType: 'Windows', path: 'C:\\agent.exe', hashes: ['ab12'], signerFingerprint: 'cd34' } },
      MULTI: {
        typeId: 'PROCESS_MULTI',
        semantic: 'AllOf',
        processes: [
          { osType: 'Linux', path: '/bin/a', hashes: [], signerFingerprints: [] },
          { osType: 'Linux', path: '/bin/b', hashes: [], signerFingerprints: ['ef56'] },
        ],
      },
      MFA: { typeId: 'MFA', timeoutSeconds: 600, promptOnWake: true },
      MFA_UNLOCK: { typeId: 'MFA', promptOnUnlock: true },
    };
    for (const [key, body] of Object.entries(bodies)) ids[key] = await createdId(admin, '/posture-checks', { name: `check-${key}`, ...body });
  });
  after(async () => ctl.close());

  const db = () => ctl.running.database.db;
  const posture = () => ctl.running.services.posture;
  const checks = async (...keys: string[]) => Promise.all(keys.map(async (key) => (await ctl.running.services.authorization.postureChecks.get(ids[key]!)) as PostureCheck));
  const authOf = (headers: Record<string, string>) =>
    ctl.running.services.auth.authenticate({ sessionToken: headers['svc-session'], bearerTokens: headers.authorization ? [headers.authorization.slice(7)] : [] });
  /** isPassing of each check for the session, by key. */
  async function passing(headers: Record<string, string>, ...keys: string[]) {
    const queries = await posture().postureQueries(await authOf(headers), await checks(...keys));
    return Object.fromEntries(keys.map((key, i) => [key, queries[i]!.isPassing]));
  }
  const post = (headers: Record<string, string>, path: string, body: unknown) => ctl.fetch(`${CLIENT}${path}`, { method: 'POST', headers, body: body as object });
  const rows = async (sessionId: string) => (await db().selectFrom('posture_responses').select('slot').where('session_id', '=', sessionId).execute()).map((r) => r.slot).sort();

  async function legacy(name: string): Promise<{ headers: Record<string, string>; sessionId: string; identityId: string }> {
    const identity = await createIdentity(ctl.running.database, { name, username: name, password: `${name}-password` });
    const res = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: name, password: `${name}-password` } });
    assert.equal(res.status, 200, res.text);
    return { headers: { 'svc-session': res.json().data.token }, sessionId: res.json().data.id, identityId: identity.id };
  }
  /** An OIDC login of an existing identity through the in-process app: authorize, login, callback, token. */
  async function oidc(name: string, totpUrl?: string): Promise<{ headers: Record<string, string>; sessionId: string }> {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const query = new URLSearchParams({ client_id: 'svc', response_type: 'code', scope: 'openid offline_access', redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: 'S256', state: 's' });
    const authorize = await ctl.fetch(`/oidc/authorization?${query}`);
    const authRequestId = new URL(String(authorize.headers.location), ctl.baseUrl).searchParams.get('authRequestID') ?? '';
    assert.equal(authorize.status, 302, authorize.text);
    let login = await ctl.fetch('/oidc/login/password', { method: 'POST', body: { authRequestId, username: name, password: `${name}-password` } });
    if (totpUrl) {
      clock.advance(30_000);
      login = await ctl.fetch('/oidc/login/totp', { method: 'POST', body: { authRequestId, code: totpCode(totpUrl, clock.now()) } });
    }
    assert.equal(login.status, 302, login.text);
    const code = new URL(String(await followCallback(ctl, login.headers.location))).searchParams.get('code') ?? '';
    const tokens = await postForm(ctl, '/oidc/token', { grant_type: 'authorization_code', client_id: 'svc', redirect_uri: REDIRECT_URI, code, code_verifier: verifier });
    assert.equal(tokens.status, 200, tokens.text);
    const headers = { authorization: `Bearer ${tokens.json().access_token}` };
    return { headers, sessionId: (await authOf(headers)).session.id };
  }

  const OS_OK = { id: '', typeId: 'OS', type: 'windows', version: '10.0.19045', build: '4291' };

  it('stores each type for a legacy session and passes exactly the checks the reports satisfy', async () => {
    const { headers, sessionId } = await legacy('posture-legacy');
    assert.deepEqual(await passing(headers, 'OS', 'MAC', 'DOMAIN', 'PROCESS', 'MULTI'), { OS: false, MAC: false, DOMAIN: false, PROCESS: false, MULTI: false });
    const sent = [
      { ...OS_OK, id: ids.OS },
      { id: ids.MAC, typeId: 'MAC', macAddresses: ['aa-bb-cc-dd-ee-ff', '001a2b3c4d5e'] },
      { id: ids.DOMAIN, typeId: 'DOMAIN', domain: 'corp.example' },
      { id: ids.PROCESS, typeId: 'PROCESS', isRunning: true, hash: 'AB12', signerFingerprints: ['CD34'] },
      { id: ids.MULTI, typeId: 'PROCESS', path: '/bin/a', isRunning: true },
    ];
    for (const body of sent) {
      const res = await post(headers, '/posture-response', body);
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(res.json().data, { services: [] });
    }
    assert.deepEqual(await passing(headers, 'OS', 'MAC', 'DOMAIN', 'PROCESS', 'MULTI'), { OS: true, MAC: true, DOMAIN: true, PROCESS: true, MULTI: false });
    // AllOf: the second path, running and signed by the named signer, completes it.
    assert.equal((await post(headers, '/posture-response', { id: ids.MULTI, typeId: 'PROCESS_MULTI', path: '/bin/b', isRunning: true, signerFingerprints: ['ef:56'] })).status, 201);
    assert.equal((await passing(headers, 'MULTI')).MULTI, true);
    assert.deepEqual(await rows(sessionId), ['DOMAIN', 'MAC', 'OS', 'PROCESS:/bin/a', 'PROCESS:/bin/b', 'PROCESS:C:\\agent.exe']);
  });

  it('replaces a slot with the next report, so a failing value fails the check again', async () => {
    const { headers } = await legacy('posture-replace');
    const cases: Array<[string, Record<string, unknown>, boolean]> = [
      ['OS', { ...OS_OK, id: ids.OS }, true],
      ['OS', { ...OS_OK, id: ids.OS, version: '11.0.1' }, false],
      ['OS', { ...OS_OK, id: ids.OS, version: 'not-a-version' }, false],
      ['OS', { ...OS_OK, id: ids.OS, type: 'Linux', version: 'unknown' }, true],
      ['OS', { ...OS_OK, id: ids.OS, type: 'macOS' }, false],
      ['MAC', { id: ids.MAC, typeId: 'MAC', macAddresses: ['00:00:00:00:00:01'] }, false],
      ['DOMAIN', { id: ids.DOMAIN, typeId: 'DOMAIN', domain: '' }, false],
      ['PROCESS', { id: ids.PROCESS, typeId: 'PROCESS', isRunning: false, hash: 'ab12', signerFingerprints: ['cd34'] }, false],
      ['PROCESS', { id: ids.PROCESS, typeId: 'PROCESS', isRunning: true, hash: 'ffff', signerFingerprints: ['cd34'] }, false],
      ['PROCESS', { id: ids.PROCESS, typeId: 'PROCESS', isRunning: true, hash: 'ab12', signerFingerprints: ['0000'] }, false],
      ['PROCESS', { id: ids.PROCESS, typeId: 'PROCESS', path: 'C:\\agent.exe', isRunning: true, hash: 'ab12', signerFingerprints: ['cd34'] }, true],
    ];
    for (const [key, body, expected] of cases) {
      assert.equal((await post(headers, '/posture-response', body)).status, 201);
      assert.equal((await passing(headers, key))[key], expected, JSON.stringify(body));
    }
  });

  it('takes a bulk of responses for an OIDC session, kept apart from the same identity\'s legacy session', async () => {
    const { headers: legacyHeaders } = await legacy('posture-both');
    const { headers, sessionId } = await oidc('posture-both');
    const res = await post(headers, '/posture-response-bulk', [
      { ...OS_OK, id: ids.OS },
      { id: ids.DOMAIN, typeId: 'DOMAIN', domain: 'CORP.EXAMPLE' },
      { id: 'anything', typeId: 'ENDPOINT_STATE', woken: true },
    ]);
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json(), { data: { services: [] }, meta: {} });
    assert.deepEqual(await rows(sessionId), ['DOMAIN', 'ENDPOINT_STATE:woken', 'OS']);
    assert.deepEqual(await passing(headers, 'OS', 'DOMAIN'), { OS: true, DOMAIN: true });
    assert.deepEqual(await passing(legacyHeaders, 'OS', 'DOMAIN'), { OS: false, DOMAIN: false });
    assert.equal((await post(headers, '/posture-response-bulk', [])).status, 400, 'an empty bulk reports nothing');
  });

  describe('MFA checks', () => {
    const STEP = 30_000;
    async function enrolledSession(name: string) {
      const session = await legacy(name);
      const start = await post(session.headers, '/current-identity/mfa', undefined);
      assert.equal(start.status, 201, start.text);
      const url = start.json().data.provisioningUrl as string;
      clock.advance(STEP);
      assert.equal((await post(session.headers, '/current-identity/mfa/verify', { code: totpCode(url, clock.now()) })).status, 200);
      const answer = async (headers = session.headers) => {
        clock.advance(STEP);
        const res = await post(headers, '/authenticate/mfa', { code: totpCode(url, clock.now()) });
        assert.equal(res.status, 200, res.text);
      };
      return { ...session, answer, url };
    }
    const queryOf = async (headers: Record<string, string>, key: string) => (await posture().postureQueries(await authOf(headers), await checks(key)))[0]!;

    it('passes after a TOTP answer for timeoutSeconds, then fails until TOTP is answered again', async () => {
      const { headers, answer } = await enrolledSession('mfa-timeout');
      assert.deepEqual(await queryOf(headers, 'MFA').then((q) => [q.isPassing, q.timeout, q.timeoutRemaining, q.timeoutAt]), [false, 600, 0, null]);
      await answer();
      const fresh = await queryOf(headers, 'MFA');
      assert.deepEqual([fresh.isPassing, fresh.timeout, fresh.timeoutRemaining, fresh.queryType, fresh.promptOnWake, fresh.promptGracePeriodSeconds], [true, 600, 600, 'MFA', true, 300]);
      assert.equal(fresh.timeoutAt?.getTime(), clock.now().getTime() + 600_000);
      assert.deepEqual(await queryOf(headers, 'MFA_UNLOCK').then((q) => [q.isPassing, q.timeout, q.timeoutRemaining]), [true, -1, -1]);
      clock.advance(599_000);
      assert.equal((await queryOf(headers, 'MFA')).timeoutRemaining, 1);
      clock.advance(1_000);
      assert.deepEqual(await queryOf(headers, 'MFA').then((q) => [q.isPassing, q.timeoutRemaining]), [false, 0]);
      await answer();
      assert.equal((await queryOf(headers, 'MFA')).isPassing, true);
    });

    it('gives a prompting check five minutes after a wake or unlock, then fails it until the next answer', async () => {
      const { headers, answer } = await enrolledSession('mfa-wake');
      await answer();
      clock.advance(10_000);
      assert.equal((await post(headers, '/posture-response', { id: '0', typeId: 'ENDPOINT_STATE', woken: true })).status, 201);
      clock.advance(100_000);
      assert.deepEqual(await queryOf(headers, 'MFA').then((q) => [q.isPassing, q.timeoutRemaining]), [true, 200]);
      assert.deepEqual(await queryOf(headers, 'MFA_UNLOCK').then((q) => [q.isPassing, q.timeoutRemaining]), [true, -1], 'a wake does not touch a check prompting on unlock');
      clock.advance(200_000);
      assert.equal((await queryOf(headers, 'MFA')).isPassing, false);
      await answer();
      assert.deepEqual(await queryOf(headers, 'MFA').then((q) => [q.isPassing, q.timeoutRemaining]), [true, 600]);
      clock.advance(1_000);
      assert.equal((await post(headers, '/posture-response', { id: '0', typeId: 'ENDPOINT_STATE', unlocked: true, woken: false })).status, 201);
      clock.advance(300_000);
      assert.equal((await queryOf(headers, 'MFA_UNLOCK')).isPassing, false);
      assert.equal((await queryOf(headers, 'MFA')).isPassing, true);
    });

    it('counts the TOTP of an OIDC login from its auth_time, and a later answer for that session only', async () => {
      const { headers: legacyHeaders, answer, url } = await enrolledSession('mfa-oidc');
      const { headers } = await oidc('mfa-oidc', url);
      const atLogin = await queryOf(headers, 'MFA');
      assert.equal(atLogin.isPassing, true);
      assert.ok(atLogin.timeoutRemaining <= 600 && atLogin.timeoutRemaining > 500, String(atLogin.timeoutRemaining));
      clock.advance(600_000);
      assert.equal((await queryOf(headers, 'MFA')).isPassing, false);
      await answer(headers);
      assert.deepEqual(await queryOf(headers, 'MFA').then((q) => [q.isPassing, q.timeoutRemaining]), [true, 600]);
      assert.equal((await queryOf(legacyHeaders, 'MFA')).isPassing, false, 'the legacy session of the same identity has not answered');
      assert.equal(await posture().isPassing((await checks('MFA'))[0]!, await authOf(headers)), true);
    });
  });

  describe('bad input: 400 naming the field, nothing stored', () => {
    let session: { headers: Record<string, string>; sessionId: string };
    before(async () => {
      session = await legacy('posture-bad');
      assert.equal((await post(session.headers, '/posture-response', { id: ids.DOMAIN, typeId: 'DOMAIN', domain: 'corp.example' })).status, 201);
    });
    const many = (n: number, item: unknown) => Array.from({ length: n }, () => item);
    const cases: Array<{ what: string; path?: string; body: () => unknown; field: string }> = [
      { what: 'an id naming no check', body: () => ({ id: 'no-such-check', typeId: 'OS', type: 'Linux', version: '1' }), field: 'id' },
      { what: 'a type that does not answer the check', body: () => ({ id: ids.MAC, typeId: 'OS', type: 'Linux', version: '1' }), field: 'typeId' },
      { what: 'PROCESS_MULTI for a PROCESS check', body: () => ({ id: ids.PROCESS, typeId: 'PROCESS_MULTI', isRunning: true }), field: 'typeId' },
      { what: 'an MFA response', body: () => ({ id: ids.MFA, typeId: 'MFA' }), field: 'typeId' },
      { what: 'an unknown type', body: () => ({ id: ids.OS, typeId: 'FIREWALL' }), field: 'typeId' },
      { what: 'an OS response without version', body: () => ({ id: ids.OS, typeId: 'OS', type: 'Linux' }), field: 'version' },
      { what: 'a MAC response without addresses', body: () => ({ id: ids.MAC, typeId: 'MAC' }), field: 'macAddresses' },
      { what: 'a DOMAIN response without domain', body: () => ({ id: ids.DOMAIN, typeId: 'DOMAIN' }), field: 'domain' },
      { what: 'a field of another type', body: () => ({ id: ids.OS, typeId: 'OS', type: 'Linux', version: '1', domain: 'x' }), field: 'domain' },
      { what: 'woken on a PROCESS response', body: () => ({ id: ids.PROCESS, typeId: 'PROCESS', woken: true }), field: 'woken' },
      { what: 'another path than the PROCESS check\'s', body: () => ({ id: ids.PROCESS, typeId: 'PROCESS', path: '/other' }), field: 'path' },
      { what: 'a PROCESS_MULTI answer without path', body: () => ({ id: ids.MULTI, typeId: 'PROCESS' }), field: 'path' },
      { what: 'a path the PROCESS_MULTI check does not watch', body: () => ({ id: ids.MULTI, typeId: 'PROCESS', path: '/bin/c' }), field: 'path' },
      { what: 'an unknown field', body: () => ({ id: ids.OS, typeId: 'OS', type: 'Linux', version: '1', kernel: '6' }), field: 'kernel' },
      { what: 'an empty id', body: () => ({ id: '', typeId: 'ENDPOINT_STATE' }), field: 'id' },
      { what: 'a wrong JSON type', body: () => ({ id: ids.PROCESS, typeId: 'PROCESS', isRunning: 'yes' }), field: 'isRunning' },
      { what: 'too many MAC addresses', body: () => ({ id: ids.MAC, typeId: 'MAC', macAddresses: many(65, '00:1a:2b:3c:4d:5e') }), field: 'macAddresses' },
      { what: 'a path too long', body: () => ({ id: ids.MULTI, typeId: 'PROCESS', path: 'p'.repeat(4097) }), field: 'path' },
      { what: 'an array on the single operation', body: () => [{ id: ids.OS, typeId: 'OS', type: 'Linux', version: '1' }], field: 'body' },
      { what: 'a bulk whose third response is refused', path: '/posture-response-bulk', body: () => [{ ...OS_OK, id: ids.OS }, { ...OS_OK, id: ids.OS }, { id: 'nope', typeId: 'MAC', macAddresses: [] }], field: '2.id' },
      { what: 'a bulk with a type mismatch', path: '/posture-response-bulk', body: () => [{ id: ids.MAC, typeId: 'DOMAIN', domain: 'd' }], field: '0.typeId' },
      { what: 'a bulk of more than 128', path: '/posture-response-bulk', body: () => many(129, { id: '0', typeId: 'ENDPOINT_STATE', woken: true }), field: 'body' },
      { what: 'an empty bulk', path: '/posture-response-bulk', body: () => [], field: 'body' },
      { what: 'an object on the bulk operation', path: '/posture-response-bulk', body: () => ({ ...OS_OK, id: ids.OS }), field: 'body' },
    ];
    for (const { what, path, body, field } of cases) {
      it(`refuses ${what}`, async () => {
        const res = await post(session.headers, path ?? '/posture-response', body());
        assert.equal(res.status, 400, res.text);
        assert.equal(res.json().error.code, 'COULD_NOT_VALIDATE');
        const named = res.json().error.cause?.field as string;
        assert.ok(named === field || named?.endsWith(`.${field}`) || named?.startsWith(`${field}`), `${named} should name ${field}`);
        assert.deepEqual(await rows(session.sessionId), ['DOMAIN']);
      });
    }

    it('answers 401 without credentials', async () => {
      const res = await ctl.fetch(`${CLIENT}/posture-response`, { method: 'POST', body: { ...OS_OK, id: ids.OS } });
      assert.equal(res.status, 401);
    });
  });

  describe('the responses go with their API session', () => {
    it('on legacy logout, OIDC logout and the identity\'s delete', async () => {
      const item = { id: ids.DOMAIN, typeId: 'DOMAIN', domain: 'corp.example' };
      const a = await legacy('posture-gone');
      const b = await oidc('posture-gone');
      const c = await legacy('posture-gone-2');
      for (const s of [a, b, c]) assert.equal((await post(s.headers, '/posture-response', item)).status, 201);
      assert.equal((await ctl.fetch(`${CLIENT}/current-api-session`, { method: 'DELETE', headers: a.headers })).status, 200);
      assert.deepEqual(await rows(a.sessionId), []);
      assert.equal((await ctl.fetch(`${CLIENT}/current-api-session`, { method: 'DELETE', headers: b.headers })).status, 200);
      assert.deepEqual(await rows(b.sessionId), []);
      // The MFA tests moved the clock past the first admin session's timeout: a new one.
      const adminId = (await db().selectFrom('identities').select('id').where('is_default_admin', '=', storedBool(true)).executeTakeFirstOrThrow()).id;
      const fresh = managementClient(ctl, (await ctl.running.services.apiSessions.start(adminId, 'password', '127.0.0.1')).token);
      assert.equal((await fresh.del(`/identities/${c.identityId}`)).status, 200);
      assert.deepEqual(await rows(c.sessionId), []);
    });
  });
});
