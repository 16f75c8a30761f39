/**
 * Session tokens of the client API (decision 0031): signed with the OIDC provider's key and checked with its keys
 * only, each kind of token refused where the other is expected (a session token is no access token, and the other
 * way round), and every claim a router needs carried.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exportJWK, generateKeyPair } from 'jose';
import type { EdgeSession } from '../../src/domain/edge-session.js';
import type { Identity } from '../../src/domain/identity.js';
import type { OidcSession } from '../../src/domain/oidc.js';
import { createSessionTokens } from '../../src/services/edge-sessions/session-tokens.js';
import { keySetOf } from '../helpers/signing-keys.js';
import { createOidcTokenSigner, isAccessTokenClaims, TokenRejected } from '../../src/services/oidc-provider/oidc-tokens.js';

const OIDC_ISSUER = 'https://127.0.0.1:1280/oidc';
const EDGE_ISSUER = 'https://127.0.0.1:1280';
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function setup() {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'kid-1', alg: 'ES256', use: 'sig' };
  const signer = createOidcTokenSigner({
    signingKey: { key: privateKey as never, alg: 'ES256', kid: 'kid-1', publicJwk },
    keys: await keySetOf({ key: privateKey as never, alg: 'ES256', kid: 'kid-1', publicJwk }, [OIDC_ISSUER]),
    accessTokenDurationMs: 30 * 60_000,
    idTokenDurationMs: 30 * 60_000,
  });
  const now = new Date();
  const session: EdgeSession = {
    id: 'session-1',
    apiSessionId: 'asid-1',
    apiSessionKind: 'oidc',
    identityId: 'id-1',
    serviceId: 'service-1',
    type: 'Bind',
    tags: {},
    createdAt: now,
    updatedAt: now,
  };
  return { signer, tokens: createSessionTokens({ signer, issuer: EDGE_ISSUER }), session, now };
}

const rejects = (promise: Promise<unknown>, reason: 'invalid' | 'expired') =>
  assert.rejects(promise, (error: unknown) => error instanceof TokenRejected && error.reason === reason);

describe('session tokens', () => {
  it('carry the session, service, type, identity and API session, and verify until they expire', async () => {
    const { tokens, session, now } = await setup();
    const token = await tokens.sign(session, now, new Date(now.getTime() + 60_000));
    const claims = await tokens.verify(token, now);
    assert.deepEqual(
      { jti: claims.jti, sub: claims.sub, iss: claims.iss, z_t: claims.z_t, z_st: claims.z_st, z_iid: claims.z_iid, z_asid: claims.z_asid, z_leg: claims.z_leg },
      { jti: 'session-1', sub: 'service-1', iss: EDGE_ISSUER, z_t: 's', z_st: 'Bind', z_iid: 'id-1', z_asid: 'asid-1', z_leg: false },
    );
    await rejects(tokens.verify(token, new Date(now.getTime() + 61_000)), 'expired');
  });

  it('are not access tokens, and access tokens are not session tokens', async () => {
    const { signer, tokens, session, now } = await setup();
    const sessionToken = await tokens.sign(session, now, new Date(now.getTime() + 60_000));
    await rejects(signer.verify(sessionToken, now), 'invalid');
    const identity = { id: 'id-1', name: 'alice', isAdmin: false } as Identity;
    const oidcSession: OidcSession = { id: 'asid-1', identityId: 'id-1', clientId: 'svc', issuer: OIDC_ISSUER, scope: 'openid', amr: ['password'], authTime: now, configTypes: [], revokedAt: null, createdAt: now };
    const access = (await signer.signAccess({ issuer: OIDC_ISSUER, identity, session: oidcSession, now })).token;
    assert.equal(isAccessTokenClaims(await signer.verify(access, now)), true);
    await rejects(tokens.verify(access, now), 'invalid');
  });

  it('refuse a tampered payload, alg none, another issuer and another key', async () => {
    const { signer, tokens, session, now } = await setup();
    const token = await tokens.sign(session, now, new Date(now.getTime() + 60_000));
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    await rejects(tokens.verify(`${header}.${b64({ ...claims, sub: 'service-2' })}.${signature}`, now), 'invalid');
    await rejects(tokens.verify(`${b64({ alg: 'none', typ: 'service-session+jwt' })}.${payload}.`, now), 'invalid');
    await rejects(createSessionTokens({ signer, issuer: 'https://elsewhere:1280' }).verify(token, now), 'invalid');
    const other = await setup();
    await rejects(other.tokens.verify(token, now), 'invalid');
  });
});
