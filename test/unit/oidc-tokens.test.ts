/**
 * Verification of OIDC access tokens: only our key, our algorithm, our issuers and audience, within their time.
 * Hostile tokens (tampered, `alg: none`, HS256 keyed with the public key, foreign kid) are all `invalid`.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { Identity } from '../../src/domain/identity.js';
import type { OidcSession } from '../../src/domain/oidc.js';
import { keySetOf } from '../helpers/signing-keys.js';
import { ecdsaTwin } from '../helpers/ecdsa-twin.js';
import { createOidcTokenSigner, isAccessTokenClaims, TokenRejected } from '../../src/services/oidc-provider/oidc-tokens.js';
import { createLru } from '../../src/shared/lru.js';

const ISSUER = 'https://127.0.0.1:1280/oidc';
const now = new Date('2030-01-01T00:00:00Z');
const b64 = (value: object | string) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

async function setup() {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'kid-1', alg: 'ES256', use: 'sig' };
  const signer = createOidcTokenSigner({
    signingKey: { key: privateKey as never, alg: 'ES256', kid: 'kid-1', publicJwk },
    keys: await keySetOf({ key: privateKey as never, alg: 'ES256', kid: 'kid-1', publicJwk }, [ISSUER]),
    accessTokenDurationMs: 30 * 60_000,
    idTokenDurationMs: 30 * 60_000,
  });
  const identity = { id: 'id-1', name: 'alice', isAdmin: true } as Identity;
  const session: OidcSession = { id: 'asid-1', identityId: 'id-1', clientId: 'svc', issuer: ISSUER, scope: 'openid', amr: ['password'], authTime: now, configTypes: [], revokedAt: null, createdAt: now };
  const access = (await signer.signAccess({ issuer: ISSUER, identity, session, now })).token;
  return { signer, privateKey, publicJwk, identity, session, access };
}

const rejects = (promise: Promise<unknown>, reason: 'invalid' | 'expired') =>
  assert.rejects(promise, (error: unknown) => error instanceof TokenRejected && error.reason === reason);

describe('OIDC access token verification', () => {
  it('accepts its own access token with every claim the spec names', async () => {
    const { signer, access } = await setup();
    const claims = await signer.verify(access, now);
    assert.ok(isAccessTokenClaims(claims));
    assert.deepEqual(
      { iss: claims.iss, sub: claims.sub, aud: claims.aud, z_asid: claims.z_asid, z_ia: claims.z_ia, z_t: claims.z_t, z_ice: claims.z_ice, client_id: claims.client_id },
      { iss: ISSUER, sub: 'id-1', aud: ['svc'], z_asid: 'asid-1', z_ia: true, z_t: 'a', z_ice: false, client_id: 'svc' },
    );
    assert.equal(claims.exp! - claims.iat!, 1800);
  });

  it('tells an ID token apart from an access token', async () => {
    const { signer, identity, session } = await setup();
    const id = await signer.signId({ issuer: ISSUER, identity, session, nonce: 'n', now });
    const claims = await signer.verify(id, now);
    assert.equal(isAccessTokenClaims(claims), false);
    assert.equal(claims.sid, 'asid-1');
    assert.equal(claims.nonce, 'n');
  });

  it('refuses a tampered payload', async () => {
    const { signer, access } = await setup();
    const [h, , s] = access.split('.');
    const forged = `${h}.${b64({ ...JSON.parse(Buffer.from(access.split('.')[1]!, 'base64url').toString()), z_ia: false })}.${s}`;
    await rejects(signer.verify(forged, now), 'invalid');
  });

  it('refuses the high-S twin of its own access token, ID token and other token, and accepts the originals', async () => {
    const { signer, identity, session, access } = await setup();
    const id = await signer.signId({ issuer: ISSUER, identity, session, nonce: null, now });
    const other = await signer.signOther({ iss: ISSUER, aud: 'routers', exp: Math.floor(now.getTime() / 1000) + 60 }, 'x+jwt');
    const expected = { typ: 'x+jwt', issuer: ISSUER, audience: 'routers' };
    await signer.verify(access, now);
    await signer.verify(id, now, { allowExpired: true });
    await signer.verifyOther(other, now, expected);
    await rejects(signer.verify(ecdsaTwin(access), now), 'invalid');
    await rejects(signer.verify(ecdsaTwin(id), now, { allowExpired: true }), 'invalid');
    await rejects(signer.verifyOther(ecdsaTwin(other), now, expected), 'invalid');
  });

  it('refuses alg none and HS256 keyed with the public key', async () => {
    const { signer, access, publicJwk } = await setup();
    const payload = access.split('.')[1]!;
    await rejects(signer.verify(`${b64({ alg: 'none', kid: 'kid-1' })}.${payload}.`, now), 'invalid');
    const input = `${b64({ alg: 'HS256', kid: 'kid-1' })}.${payload}`;
    const mac = createHmac('sha256', JSON.stringify(publicJwk)).update(input).digest('base64url');
    await rejects(signer.verify(`${input}.${mac}`, now), 'invalid');
  });

  it('refuses a wrong kid, a foreign key, a wrong issuer and a wrong audience', async () => {
    const { signer, privateKey } = await setup();
    const other = await generateKeyPair('ES256');
    const base = () => new SignJWT({ z_t: 'a', z_asid: 'asid-1' }).setSubject('id-1').setIssuedAt(now.getTime() / 1000).setExpirationTime(now.getTime() / 1000 + 60);
    await rejects(signer.verify(await base().setProtectedHeader({ alg: 'ES256', kid: 'other' }).setIssuer(ISSUER).setAudience('svc').sign(privateKey), now), 'invalid');
    await rejects(signer.verify(await base().setProtectedHeader({ alg: 'ES256', kid: 'kid-1' }).setIssuer(ISSUER).setAudience('svc').sign(other.privateKey), now), 'invalid');
    await rejects(signer.verify(await base().setProtectedHeader({ alg: 'ES256', kid: 'kid-1' }).setIssuer('https://evil/oidc').setAudience('svc').sign(privateKey), now), 'invalid');
    await rejects(signer.verify(await base().setProtectedHeader({ alg: 'ES256', kid: 'kid-1' }).setIssuer(ISSUER).setAudience('other').sign(privateKey), now), 'invalid');
  });

  it('says expired after exp and invalid before nbf', async () => {
    const { signer, access } = await setup();
    await rejects(signer.verify(access, new Date(now.getTime() + 31 * 60_000)), 'expired');
    await rejects(signer.verify(access, new Date(now.getTime() - 60_000)), 'invalid');
  });
});

describe('the bounded LRU cache', () => {
  it('drops the least recently used entry past its capacity', () => {
    const cache = createLru<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.set('c', 3);
    assert.equal(cache.get('b'), undefined);
    assert.equal(cache.get('a'), 1);
    assert.equal(cache.size, 2);
  });
});
