/**
 * External JWTs as credentials (issue 6, must-haves 3 and 4): the primary `ext-jwt` login on the legacy API and in
 * OIDC, every refused token with its realm and error (never a 5xx), the auth policy's say, and the secondary
 * requirement: re-checked on every request after login, and answered inside the OIDC login. A real HTTPS JWKS
 * server publishes the provider's keys; tokens are signed with `jose`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT, UnsecuredJWT, decodeJwt } from 'jose';
import type * as client from 'openid-client';
import { createIdentityRepository } from '../../src/persistence/repositories/identities.js';
import { manualClock } from '../../src/shared/clock.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { AUDIENCE, ISSUER, signerBody, signingKey, signToken, startJwksServer, type JwksServer, type SigningKey } from '../helpers/external-jwt.js';
import { createIdentity, updateIdentityRow } from '../helpers/fixtures.js';
import { authPolicyBody, managementClient, type ManagementClient } from '../helpers/management.js';
import { discoverClient, followCallback, postForm, REDIRECT_URI, startLogin } from '../helpers/oidc.js';
import { authRequestKey } from '../../src/services/oidc-provider/oidc-auth-request-seal.js';

const CLIENT = '/edge/client/v1';
const SECOND_ISSUER = 'https://second-idp.example.test';

/** The parameters of the one WWW-Authenticate challenge of a 401. */
function challenge(res: { headerValues(name: string): string[] }) {
  const values = res.headerValues('www-authenticate');
  assert.equal(values.length, 1, values.join(' || '));
  return Object.fromEntries([...(values[0] as string).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
}

describe(`logins with external JWTs (${testDialect})`, () => {
  const clock = manualClock(new Date());
  let ctl: TestController;
  let admin: ManagementClient;
  let server: JwksServer;
  let key: SigningKey;
  let secondKey: SigningKey;
  let primarySigner: string;
  let secondarySigner: string;
  let config: client.Configuration;
  before(async () => {
    ctl = await startTestController({ clock });
    admin = managementClient(ctl, await ctl.adminToken());
    server = await startJwksServer(ctl.pki);
    key = await signingKey('primary-key');
    secondKey = await signingKey('second-key');
    server.jwks.keys.push(key.publicJwk, secondKey.publicJwk);
    const create = async (body: Record<string, unknown>) => {
      const res = await admin.post('/external-jwt-signers', body);
      assert.equal(res.status, 201, res.text);
      return res.json().data.id as string;
    };
    primarySigner = await create(signerBody('primary-idp', { jwksEndpoint: `${server.origin}/jwks` }));
    secondarySigner = await create(signerBody('second-idp', { issuer: SECOND_ISSUER, jwksEndpoint: `${server.origin}/jwks` }));
    config = await discoverClient(ctl);
  });
  after(async () => {
    await server.close();
    await ctl.close();
  });

  const db = () => ctl.running.database;
  const token = (claims: Record<string, unknown>, options: Partial<Parameters<typeof signToken>[1]> = {}) => signToken(claims, { key, now: clock.now(), ...options });
  const secondToken = (sub: string, options: Partial<Parameters<typeof signToken>[1]> = {}) =>
    signToken({ sub }, { key: secondKey, issuer: SECOND_ISSUER, now: clock.now(), ...options });
  const extJwtLogin = (bearer: string | string[] | undefined, api = 'client') =>
    ctl.fetch(`/edge/${api}/v1/authenticate?method=ext-jwt`, {
      method: 'POST',
      headers: bearer === undefined ? {} : { authorization: Array.isArray(bearer) ? bearer.map((t) => `Bearer ${t}`) : `Bearer ${bearer}` },
    });
  async function policy(change: (body: any) => void): Promise<string> {
    const body = authPolicyBody(`policy-${Math.random().toString(36).slice(2)}`);
    change(body);
    const res = await admin.post('/auth-policies', body);
    assert.equal(res.status, 201, res.text);
    return res.json().data.id;
  }

  describe('primary, legacy', () => {
    it('logs in with a Bearer JWT whose sub is the identity id, on both APIs, with no body', async () => {
      const identity = await createIdentity(db(), { name: 'jwt-ann' });
      for (const api of ['client', 'management']) {
        const res = await extJwtLogin(await token({ sub: identity.id }), api);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json().data.identityId, identity.id);
        assert.equal(res.json().data.authMethod, 'ext-jwt');
        const me = await ctl.fetch(`${CLIENT}/current-identity`, { headers: { 'svc-session': String(res.headers['svc-session']) } });
        assert.equal(me.status, 200);
      }
    });

    it('matches the claim to externalId for a signer with useExternalId, and reads a JSON-pointer claimsProperty', async () => {
      const identity = await createIdentity(db(), { name: 'jwt-ext' });
      await updateIdentityRow(db(), identity.id, { external_id: 'ext-42' });
      const res = await admin.patch(`/external-jwt-signers/${secondarySigner}`, { useExternalId: true, claimsProperty: '/user/id' });
      assert.equal(res.status, 200, res.text);
      try {
        const login = await extJwtLogin(await signToken({ user: { id: 'ext-42' } }, { key: secondKey, issuer: SECOND_ISSUER, now: clock.now() }));
        assert.equal(login.status, 200, login.text);
        assert.equal(login.json().data.identityId, identity.id);
      } finally {
        await admin.patch(`/external-jwt-signers/${secondarySigner}`, { useExternalId: false, claimsProperty: 'sub' });
      }
    });

    it('answers a missing token with realm svc-primary-ext-jwt, error missing, and the enabled signers', async () => {
      const res = await extJwtLogin(undefined);
      assert.equal(res.status, 401);
      const c = challenge(res);
      assert.equal(c.realm, 'svc-primary-ext-jwt');
      assert.equal(c.error, 'missing');
      assert.ok(c.id?.split('|').includes(primarySigner));
      assert.ok(c.issuer?.split('|').includes(ISSUER));
    });

    it('refuses every bad token with 401 in realm svc-primary-ext-jwt naming the failed check', async () => {
      const identity = await createIdentity(db(), { name: 'jwt-bob' });
      const disabled = await createIdentity(db(), { name: 'jwt-disabled' });
      await updateIdentityRow(db(), disabled.id, { disabled: true, disabled_at: clock.now().toISOString() });
      const now = Math.floor(clock.now().getTime() / 1000);
      const impostor = await signingKey('primary-key');
      const cases: Array<[string, string, 'invalid' | 'expired', RegExp]> = [
        ['signed by another key', await signToken({ sub: identity.id }, { key: impostor, now: clock.now() }), 'invalid', /signature/i],
        ['alg none', new UnsecuredJWT({ sub: identity.id }).setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime(now + 600).encode(), 'invalid', /algorithm/i],
        [
          'HS256 with the public key as secret',
          await new SignJWT({ sub: identity.id })
            .setProtectedHeader({ alg: 'HS256', kid: 'primary-key' })
            .setIssuer(ISSUER)
            .setAudience(AUDIENCE)
            .setExpirationTime(now + 600)
            .sign(new TextEncoder().encode(JSON.stringify(key.publicJwk))),
          'invalid',
          /algorithm/i,
        ],
        ['wrong issuer', await token({ sub: identity.id }, { issuer: 'https://elsewhere.example' }), 'invalid', /./],
        ['wrong audience', await token({ sub: identity.id }, { audience: 'someone-else' }), 'invalid', /audience/i],
        ['expired', await token({ sub: identity.id }, { exp: now - 120 }), 'expired', /expired/i],
        ['not yet valid', await token({ sub: identity.id }, { nbf: now + 600 }), 'invalid', /not (yet )?valid|nbf/i],
        ['without the claim', await token({ name: 'bob' }), 'invalid', /sub/],
        ['naming no identity', await token({ sub: 'no-such-identity' }), 'invalid', /does not name an identity/],
        ['naming a disabled identity', await token({ sub: disabled.id }), 'invalid', /does not name an identity/],
        ['garbage', 'not.a.jwt', 'invalid', /./],
        [
          'non-ASCII alg and kid in the header',
          `${Buffer.from(JSON.stringify({ alg: '名', kid: 'ключ' })).toString('base64url')}.${Buffer.from('{}').toString('base64url')}.AAAA`,
          'invalid',
          /./,
        ],
      ];
      for (const [what, jwt, error, description] of cases) {
        const res = await extJwtLogin(jwt);
        assert.equal(res.status, 401, `${what}: ${res.text}`);
        const c = challenge(res);
        assert.equal(c.realm, 'svc-primary-ext-jwt', what);
        assert.equal(c.error, error, what);
        assert.match(c.error_description ?? '', description, `${what}: ${c.error_description}`);
        assert.ok(c.id, what);
      }
    });

    it('follows the auth policy: ext-jwt must be allowed, and when signers are listed this one must be among them', async () => {
      const noExtJwt = await policy((body) => (body.primary.extJwt.allowed = false));
      const onlySecond = await policy((body) => (body.primary.extJwt = { allowed: true, allowedSigners: [secondarySigner] }));
      for (const [name, policyId] of [['jwt-carl', noExtJwt], ['jwt-dina', onlySecond]] as const) {
        const identity = await createIdentity(db(), { name, authPolicyId: policyId });
        const res = await extJwtLogin(await token({ sub: identity.id }));
        assert.equal(res.status, 401, res.text);
        assert.equal(challenge(res).realm, 'svc-primary-ext-jwt');
        assert.match(challenge(res).error_description ?? '', /auth policy/);
      }
      const dina = await createIdentity(db(), { name: 'jwt-dina2', authPolicyId: onlySecond });
      const accepted = await extJwtLogin(await secondToken(dina.id));
      assert.equal(accepted.status, 200, `the listed signer is accepted: ${accepted.text} ${accepted.headerValues('www-authenticate')}`);
    });

    it('lets an administrator log in by external JWT only through a policy that lists the signer by id', async () => {
      const adminByDefault = await createIdentity(db(), { name: 'jwt-admin-default', isAdmin: true });
      const refused = await extJwtLogin(await token({ sub: adminByDefault.id }));
      assert.equal(refused.status, 401, 'the default policy (any signer) does not reach administrators');
      assert.equal(challenge(refused).realm, 'svc-primary-ext-jwt');
      assert.match(challenge(refused).error_description ?? '', /auth policy/, 'worded as for any identity: the answer does not tell that it is an admin');
      const anySigner = await policy((body) => (body.primary.extJwt = { allowed: true, allowedSigners: [] }));
      const adminAnySigner = await createIdentity(db(), { name: 'jwt-admin-any', isAdmin: true, authPolicyId: anySigner });
      assert.equal((await extJwtLogin(await token({ sub: adminAnySigner.id }))).status, 401, 'nor does an explicit empty list');
      const listsPrimary = await policy((body) => (body.primary.extJwt = { allowed: true, allowedSigners: [primarySigner] }));
      const adminListed = await createIdentity(db(), { name: 'jwt-admin-listed', isAdmin: true, authPolicyId: listsPrimary });
      const accepted = await extJwtLogin(await token({ sub: adminListed.id }));
      assert.equal(accepted.status, 200, accepted.text);
      const defaultAdmin = await createIdentityRepository(db()).findDefaultAdmin();
      assert.equal((await extJwtLogin(await token({ sub: defaultAdmin?.id }))).status, 401, 'the default admin included');
    });

    it('refuses every token of a disabled signer', async () => {
      const identity = await createIdentity(db(), { name: 'jwt-erin' });
      await admin.patch(`/external-jwt-signers/${secondarySigner}`, { enabled: false });
      try {
        const res = await extJwtLogin(await secondToken(identity.id));
        assert.equal(res.status, 401);
      } finally {
        await admin.patch(`/external-jwt-signers/${secondarySigner}`, { enabled: true });
      }
    });
  });

  describe('primary, OIDC', () => {
    it('answers a primary ext-jwt login that still owes a secondary JWT of another signer with 200 and the auth query', async () => {
      const needsSecond = await policy((body) => {
        body.primary.extJwt = { allowed: true, allowedSigners: [] };
        body.secondary.requireExtJwt = secondarySigner;
      });
      const identity = await createIdentity(db(), { name: 'jwt-owen', authPolicyId: needsSecond });
      const started = await startLogin(ctl, config, { method: 'ext-jwt' });
      const res = await ctl.fetch('/oidc/login/ext-jwt', { method: 'POST', body: { authRequestId: started.authRequestId }, headers: { authorization: `Bearer ${await token({ sub: identity.id })}` } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json().authQueries.map((q: any) => [q.typeId, q.id]), [['EXT-JWT', secondarySigner]]);
      // Enrolling TOTP is refused while the external JWT is owed (a password alone must not plant an authenticator).
      const both = await policy((body) => {
        body.secondary.requireTotp = true;
        body.secondary.requireExtJwt = secondarySigner;
      });
      const pia = await createIdentity(db(), { name: 'jwt-pia', username: 'jwt-pia', password: 'jwt-pia-password', authPolicyId: both });
      const second = await startLogin(ctl, config);
      const login = await ctl.fetch('/oidc/login/password', { method: 'POST', body: { authRequestId: second.authRequestId, username: 'jwt-pia', password: 'jwt-pia-password' } });
      assert.equal(login.status, 200, login.text);
      const enroll = await ctl.fetch('/oidc/login/totp/enroll', { method: 'POST', body: { authRequestId: second.authRequestId } });
      assert.equal(enroll.status, 400, enroll.text);
      assert.match(enroll.json().error_description, /external JWT/);
      assert.equal(await db().db.selectFrom('mfa_enrollments').select('id').where('identity_id', '=', pia.id).executeTakeFirst(), undefined);
    });


    it('redirects method=ext-jwt to /oidc/login/ext-jwt and issues a code for a valid Bearer JWT; amr is ext-jwt', async () => {
      const identity = await createIdentity(db(), { name: 'jwt-fred' });
      const started = await startLogin(ctl, config, { method: 'ext-jwt' });
      assert.equal(started.location.pathname, '/oidc/login/ext-jwt');
      const refused = await ctl.fetch('/oidc/login/ext-jwt', { method: 'POST', body: { authRequestId: started.authRequestId }, headers: { authorization: `Bearer ${await token({ sub: identity.id }, { audience: 'other' })}` } });
      assert.equal(refused.status, 401, refused.text);
      assert.equal(challenge(refused).realm, 'svc-primary-ext-jwt');
      const res = await ctl.fetch('/oidc/login/ext-jwt', { method: 'POST', body: { authRequestId: started.authRequestId }, headers: { authorization: `Bearer ${await token({ sub: identity.id })}` } });
      assert.equal(res.status, 302, res.text);
      const code = new URL(String(await followCallback(ctl, res.headers.location))).searchParams.get('code') as string;
      const tokens = await postForm(ctl, '/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'svc', code_verifier: started.verifier });
      assert.equal(tokens.status, 200, tokens.text);
      const access = decodeJwt(tokens.json().access_token);
      assert.equal(access.sub, identity.id);
      assert.deepEqual(access.amr, ['ext-jwt']);
    });
  });

  describe('secondary', () => {
    let requireSecond: string;
    before(async () => {
      requireSecond = await policy((body) => (body.secondary.requireExtJwt = secondarySigner));
    });

    async function legacySession(name: string) {
      const identity = await createIdentity(db(), { name, username: name, password: `${name}-password`, authPolicyId: requireSecond });
      const res = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: name, password: `${name}-password` } });
      assert.equal(res.status, 200, res.text);
      return { identity, session: String(res.headers['svc-session']) };
    }

    it('checks the secondary JWT on every legacy request: missing, valid, another identity, then expired', async () => {
      const { identity, session } = await legacySession('second-gina');
      const other = await createIdentity(db(), { name: 'second-other' });
      const call = (bearer?: string) => ctl.fetch(`${CLIENT}/current-identity`, { headers: { 'svc-session': session, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) } });
      const missing = await call();
      assert.equal(missing.status, 401);
      assert.deepEqual([challenge(missing).realm, challenge(missing).error, challenge(missing).id, challenge(missing).issuer], ['svc-secondary-ext-jwt', 'missing', secondarySigner, SECOND_ISSUER]);
      const now = Math.floor(clock.now().getTime() / 1000);
      const shortLived = await secondToken(identity.id, { exp: now + 60 });
      assert.equal((await call(shortLived)).status, 200);
      const foreign = await call(await secondToken(other.id));
      assert.equal(foreign.status, 401);
      assert.equal(challenge(foreign).error, 'invalid');
      const primaryIdp = await call(await token({ sub: identity.id }));
      assert.equal(primaryIdp.status, 401, 'a JWT of another signer does not count');
      clock.advance(120_000);
      const expired = await call(shortLived);
      assert.equal(expired.status, 401);
      assert.equal(challenge(expired).error, 'expired');
      assert.equal((await call(await secondToken(identity.id))).status, 200, 'a fresh JWT works again');
    });

    it('stops accepting a remembered secondary JWT within 30 seconds of its signer being disabled', async () => {
      const { identity, session } = await legacySession('second-jill');
      const jwt = await secondToken(identity.id);
      const call = () => ctl.fetch(`${CLIENT}/current-identity`, { headers: { 'svc-session': session, authorization: `Bearer ${jwt}` } });
      assert.equal((await call()).status, 200);
      await admin.patch(`/external-jwt-signers/${secondarySigner}`, { enabled: false });
      try {
        clock.advance(31_000);
        const res = await call();
        assert.equal(res.status, 401, res.text);
        assert.equal(challenge(res).realm, 'svc-secondary-ext-jwt');
      } finally {
        await admin.patch(`/external-jwt-signers/${secondarySigner}`, { enabled: true });
      }
      assert.equal((await call()).status, 200);
    });

    it('keeps the OIDC login partial until the secondary JWT is presented, then requires it beside the access token', async () => {
      await createIdentity(db(), { name: 'second-hank', username: 'second-hank', password: 'second-hank-password', authPolicyId: requireSecond });
      const hank = (await db().db.selectFrom('identities').select('id').where('name', '=', 'second-hank').executeTakeFirstOrThrow()).id;
      const started = await startLogin(ctl, config);
      const login = await ctl.fetch('/oidc/login/password', { method: 'POST', body: { authRequestId: started.authRequestId, username: 'second-hank', password: 'second-hank-password' } });
      assert.equal(login.status, 200, login.text);
      assert.deepEqual(login.json().authQueries, [{ typeId: 'EXT-JWT', id: secondarySigner, httpMethod: 'POST', httpUrl: `${ctl.baseUrl}/oidc/login/ext-jwt`, provider: 'svc' }]);
      const answer = (bearer?: string) =>
        ctl.fetch('/oidc/login/ext-jwt', { method: 'POST', body: { authRequestId: started.authRequestId }, headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
      for (const [what, bearer, error] of [
        ['missing', undefined, 'missing'],
        ['expired', await secondToken(hank, { exp: Math.floor(clock.now().getTime() / 1000) - 120 }), 'expired'],
        ['of another signer', await token({ sub: hank }), 'invalid'],
      ] as const) {
        const res = await answer(bearer);
        assert.equal(res.status, 401, `${what}: ${res.text}`);
        assert.deepEqual([challenge(res).realm, challenge(res).error], ['svc-secondary-ext-jwt', error], what);
      }
      const stored = await db().db.selectFrom('oidc_auth_requests').select(['status', 'code_hash']).where('id', '=', authRequestKey(started.authRequestId)).executeTakeFirstOrThrow();
      assert.deepEqual([stored.status, stored.code_hash], ['partially_authenticated', null]);

      const secondJwt = await secondToken(hank);
      const done = await answer(secondJwt);
      assert.equal(done.status, 302, done.text);
      const code = new URL(String(await followCallback(ctl, done.headers.location))).searchParams.get('code') as string;
      const tokens = await postForm(ctl, '/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'svc', code_verifier: started.verifier });
      const accessToken = tokens.json().access_token as string;
      assert.deepEqual(decodeJwt(accessToken).amr, ['password', `ejs:${secondarySigner}`]);

      const alone = await ctl.fetch(`${CLIENT}/current-identity`, { headers: { authorization: `Bearer ${accessToken}` } });
      assert.equal(alone.status, 401);
      assert.equal(challenge(alone).realm, 'svc-secondary-ext-jwt');
      const both = await ctl.fetch(`${CLIENT}/current-identity`, { headers: { authorization: [`Bearer ${accessToken}`, `Bearer ${secondJwt}`] } });
      assert.equal(both.status, 200, both.text);
      const oneHeader = await ctl.fetch(`${CLIENT}/current-identity`, { headers: { authorization: `Bearer ${accessToken}, Bearer ${secondJwt}` } });
      assert.equal(oneHeader.status, 200, 'comma-separated values in one header work too');
    });

    it('answers the secondary JWT carried on the password login itself, issuing the code at once', async () => {
      const identity = await createIdentity(db(), { name: 'second-iris', username: 'second-iris', password: 'second-iris-password', authPolicyId: requireSecond });
      const started = await startLogin(ctl, config);
      const res = await ctl.fetch('/oidc/login/password', {
        method: 'POST',
        body: { authRequestId: started.authRequestId, username: 'second-iris', password: 'second-iris-password' },
        headers: { authorization: `Bearer ${await secondToken(identity.id)}` },
      });
      assert.equal(res.status, 302, res.text);
      assert.ok(new URL(String(await followCallback(ctl, res.headers.location))).searchParams.get('code'));
    });
  });
});
