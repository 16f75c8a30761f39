/**
 * Signing-key rotation below the HTTP layer: the store keeps one current key and retires the others with a publish
 * deadline; the token signer verifies with a retired key and publishes it only until that deadline, and never lets
 * a retired key verify an algorithm other than its own.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { Identity } from '../../src/domain/identity.js';
import type { OidcSession } from '../../src/domain/oidc.js';
import { createSigningKeyRepository } from '../../src/persistence/repositories/signing-keys.js';
import type { ServerSigningKey } from '../../src/services/enrollment/enrollment-jwt.js';
import { publishSigningKey } from '../../src/services/oidc-provider/oidc-signing-keys.js';
import { createOidcTokenSigner, TokenRejected } from '../../src/services/oidc-provider/oidc-tokens.js';
import { openTestDatabase, testDialect } from '../helpers/database.js';

const ISSUER = 'https://127.0.0.1:1280/oidc';
const MINUTE = 60_000;
const start = new Date('2030-01-01T00:00:00Z');
const at = (minutes: number) => new Date(start.getTime() + minutes * MINUTE);

async function signingKey(kid: string): Promise<ServerSigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { key: privateKey as never, alg: 'ES256', kid, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

const signerWith = (key: ServerSigningKey, retiredKeys: Array<{ kid: string; publicJwk: ServerSigningKey['publicJwk']; publishUntil: Date }> = []) =>
  createOidcTokenSigner({ signingKey: key, issuers: [ISSUER], accessTokenDurationMs: 30 * MINUTE, idTokenDurationMs: 30 * MINUTE, retiredKeys });

const identity = { id: 'id-1', name: 'alice', isAdmin: false } as Identity;
const session: OidcSession = { id: 'asid-1', identityId: 'id-1', clientId: 'svc', issuer: ISSUER, scope: 'openid', amr: ['password'], authTime: start, configTypes: [], revokedAt: null, createdAt: start };
const kids = (jwks: { keys: Array<{ kid?: string }> }) => jwks.keys.map((key) => key.kid);

describe(`the signing-key store (${testDialect})`, () => {
  it('keeps one current key, retires the previous one until its deadline, and re-activates a returning key', async () => {
    const database = await openTestDatabase();
    try {
      const keys = createSigningKeyRepository(database);
      const [a, b] = [await signingKey('kid-a'), await signingKey('kid-b')];
      assert.deepEqual(await publishSigningKey({ keys, signingKey: a, now: at(0), longestTokenLifetimeMs: 30 * MINUTE }), []);
      const retired = await publishSigningKey({ keys, signingKey: b, now: at(10), longestTokenLifetimeMs: 30 * MINUTE });
      assert.deepEqual(retired.map((key) => [key.kid, key.publishUntil.toISOString()]), [['kid-a', at(40).toISOString()]]);
      assert.deepEqual(retired[0]?.publicJwk, a.publicJwk);
      // A restart with the same key keeps the earlier deadline of the retired one.
      assert.deepEqual((await publishSigningKey({ keys, signingKey: b, now: at(20), longestTokenLifetimeMs: 30 * MINUTE })).map((key) => key.kid), ['kid-a']);
      assert.deepEqual(await publishSigningKey({ keys, signingKey: b, now: at(41), longestTokenLifetimeMs: 30 * MINUTE }), []);
      // Going back to key a makes it current again and retires b.
      assert.deepEqual((await publishSigningKey({ keys, signingKey: a, now: at(50), longestTokenLifetimeMs: 30 * MINUTE })).map((key) => key.kid), ['kid-b']);
    } finally {
      await database.close();
    }
  });
});

describe('token verification with retired keys', () => {
  it('verifies a token of a retired key and publishes that key until its deadline only', async () => {
    const [old, current] = [await signingKey('kid-old'), await signingKey('kid-new')];
    const token = (await signerWith(old).signAccess({ issuer: ISSUER, identity, session, now: at(0) })).token;
    const signer = signerWith(current, [{ kid: old.kid, publicJwk: old.publicJwk, publishUntil: at(35) }]);
    assert.equal((await signer.verify(token, at(5))).sub, 'id-1');
    assert.deepEqual(kids(signer.jwks(at(5))), ['kid-new', 'kid-old']);
    assert.deepEqual(kids(signer.jwks(at(35))), ['kid-new']);
    await assert.rejects(signer.verify(token, at(35), { allowExpired: true }), (error: unknown) => error instanceof TokenRejected && error.reason === 'invalid');
  });

  it('refuses a token whose kid names a retired key but whose algorithm is not that key\'s', async () => {
    const [old, current] = [await signingKey('kid-old'), await signingKey('kid-new')];
    const other = await generateKeyPair('ES384');
    const forged = await new SignJWT({ z_t: 'a' }).setProtectedHeader({ alg: 'ES384', kid: 'kid-old' }).setIssuer(ISSUER).setAudience('svc').setSubject('id-1').setIssuedAt().setExpirationTime('5m').sign(other.privateKey);
    const signer = signerWith(current, [{ kid: old.kid, publicJwk: old.publicJwk, publishUntil: at(35) }]);
    await assert.rejects(signer.verify(forged, new Date()), (error: unknown) => error instanceof TokenRejected && error.reason === 'invalid');
  });
});
