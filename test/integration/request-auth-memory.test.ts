/**
 * The synchronous answer of request authentication (decision 0041): it gives the caller only when every fact is kept
 * in memory and accepted, and stands aside (undefined) for everything `authenticate` must decide, so a refusal is
 * never skipped and never answered differently. Real controller, real store, both dialects.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock } from '../../src/shared/clock.js';
import { testDialect } from '../helpers/database.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { authPolicyBody, createdId, managementClient, nonAdminToken } from '../helpers/management.js';
import { passwordLoginTokens } from '../helpers/oidc.js';

describe(`request authentication from memory (${testDialect})`, () => {
  let ctl: TestController;
  const clock = manualClock(new Date());
  before(async () => {
    ctl = await startTestController({ inProcess: true, clock });
  });
  after(async () => ctl.close());

  const fromMemory = (credentials: { sessionToken?: string; bearerTokens?: string[] }) =>
    ctl.running.services.auth.authenticateFromMemory({ sessionToken: credentials.sessionToken, bearerTokens: credentials.bearerTokens ?? [] });
  const currentSession = (headers: Record<string, string>) => ctl.fetch('/edge/client/v1/current-api-session', { headers });
  /**
   * Requests until the credentials are answered from memory: a copy read while the change feed learns of a change
   * (the test's own writes, read back from the log on PostgreSQL) is not kept, so it can take more than one request.
   */
  async function keptAfterRequests(headers: Record<string, string>, credentials: Parameters<typeof fromMemory>[0]) {
    for (let attempt = 0; attempt < 40; attempt++) {
      assert.equal((await currentSession(headers)).status, 200);
      const known = fromMemory(credentials);
      if (known) return known;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return undefined;
  }

  it('answers a legacy session once its row and identity are kept, as the asynchronous path does', async () => {
    const token = await nonAdminToken(ctl, 'memory-legacy');
    const known = await keptAfterRequests({ 'svc-session': token }, { sessionToken: token });
    assert.ok(known, 'kept once read');
    const decided = await ctl.running.services.auth.authenticate({ sessionToken: token, bearerTokens: [] });
    assert.deepEqual({ ...known, expiresAt: undefined }, { ...decided, expiresAt: undefined });
    assert.equal(known.identity.name, 'memory-legacy');
    assert.equal(fromMemory({ sessionToken: 'not-a-token' }), undefined);
  });

  it('answers a lone access token once its claims, session and identity are kept; not beside another Bearer value', async () => {
    await ctl.adminToken();
    const { accessToken } = await passwordLoginTokens(ctl, 'admin', 'admin-password');
    assert.equal((await keptAfterRequests({ authorization: `Bearer ${accessToken}` }, { bearerTokens: [accessToken] }))?.kind, 'oidc');
    assert.equal(fromMemory({ bearerTokens: [accessToken, 'another.jwt.value'] }), undefined);
  });

  it('stands aside for a disabled identity, and the request is refused at once', async () => {
    const token = await nonAdminToken(ctl, 'memory-disabled');
    const me = await currentSession({ 'svc-session': token });
    assert.ok(await keptAfterRequests({ 'svc-session': token }, { sessionToken: token }));
    const admin = managementClient(ctl, await ctl.adminToken());
    assert.equal((await admin.post(`/identities/${me.json().data.identityId}/disable`, { durationMinutes: 0 })).status, 200);
    assert.equal(fromMemory({ sessionToken: token }), undefined);
    const refused = await currentSession({ 'svc-session': token });
    assert.equal(refused.status, 401);
    assert.match(String(refused.headers['www-authenticate']), /disabled/);
  });

  it('stands aside while the auth policy requires a secondary external JWT', async () => {
    const token = await nonAdminToken(ctl, 'memory-secondary');
    const identityId = (await currentSession({ 'svc-session': token })).json().data.identityId as string;
    assert.ok(await keptAfterRequests({ 'svc-session': token }, { sessionToken: token }));
    const admin = managementClient(ctl, await ctl.adminToken());
    const signerId = await createdId(admin, '/external-jwt-signers', {
      name: 'memory-signer',
      issuer: 'https://issuer.example',
      audience: 'svc',
      jwksEndpoint: 'https://issuer.example/jwks',
      enabled: true,
    });
    const body = authPolicyBody('memory-secondary-policy');
    const policyId = await createdId(admin, '/auth-policies', { ...body, secondary: { requireTotp: false, requireExtJwt: signerId } });
    const moved = await admin.patch(`/identities/${identityId}`, { authPolicyId: policyId });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(fromMemory({ sessionToken: token }), undefined);
    assert.equal((await currentSession({ 'svc-session': token })).status, 401);
    const back = await admin.patch(`/identities/${identityId}`, { authPolicyId: 'default' });
    assert.equal(back.status, 200, back.text);
    assert.ok(await keptAfterRequests({ 'svc-session': token }, { sessionToken: token }), 'kept again once its policy no longer asks for one');
  });

  // Last: it moves the clock past every session's timeout, the administrator's too.
  it('stands aside for a session past its timeout, which the asynchronous path ends', async () => {
    const token = await nonAdminToken(ctl, 'memory-idle');
    assert.ok(await keptAfterRequests({ 'svc-session': token }, { sessionToken: token }));
    clock.advance(31 * 60_000);
    assert.equal(fromMemory({ sessionToken: token }), undefined);
    const refused = await currentSession({ 'svc-session': token });
    assert.equal(refused.status, 401);
    assert.match(String(refused.headers['www-authenticate']), /error="expired"/);
    assert.equal((await currentSession({ 'svc-session': token })).status, 401, 'the session is gone');
  });
});
