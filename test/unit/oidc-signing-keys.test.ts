/**
 * Signing keys below the HTTP layer (decision 0034): the store keeps one current key per controller and retires
 * only that controller's earlier ones with a publish deadline; the token signer verifies with any controller's
 * published key and issuer, publishes a retired key only until its deadline, never lets a key verify an algorithm
 * other than its own, and re-reads the store for an unknown kid at most once per interval, never for a malformed one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { Identity } from '../../src/domain/identity.js';
import type { OidcSession } from '../../src/domain/oidc.js';
import { createSigningKeyRepository } from '../../src/persistence/repositories/signing-keys.js';
import type { ServerSigningKey } from '../../src/services/enrollment/enrollment-jwt.js';
import { loadPublishedKeys, publishSigningKey, type PublishedKeys } from '../../src/services/oidc-provider/oidc-signing-keys.js';
import { createOidcTokenSigner, TokenRejected } from '../../src/services/oidc-provider/oidc-tokens.js';
import { openTestDatabase, testDialect } from '../helpers/database.js';
import { fakeKeyStore, keyRow, keySetOf } from '../helpers/signing-keys.js';

const ISSUER = 'https://127.0.0.1:1280/oidc';
const OTHER_ISSUER = 'https://127.0.0.2:1280/oidc';
const MINUTE = 60_000;
const start = new Date(Date.now() - 60 * MINUTE);
const at = (minutes: number) => new Date(start.getTime() + minutes * MINUTE);

/** A key named like the controllers name theirs (40 lowercase hex digits), or `kid` as given. */
async function signingKey(kid: string): Promise<ServerSigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { key: privateKey as never, alg: 'ES256', kid, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}
const hexKid = (digit: string) => digit.repeat(40);

const signerWith = (key: ServerSigningKey, keys: PublishedKeys) =>
  createOidcTokenSigner({ signingKey: key, accessTokenDurationMs: 30 * MINUTE, idTokenDurationMs: 30 * MINUTE, keys });

const identity = { id: 'id-1', name: 'alice', isAdmin: false } as Identity;
const session: OidcSession = { id: 'asid-1', identityId: 'id-1', clientId: 'svc', issuer: ISSUER, scope: 'openid', amr: ['password'], authTime: start, configTypes: [], revokedAt: null, createdAt: start };
const kids = (jwks: { keys: Array<{ kid?: string }> }) => jwks.keys.map((key) => key.kid);
const invalid = (error: unknown) => error instanceof TokenRejected && error.reason === 'invalid';

describe(`the signing-key store (${testDialect})`, () => {
  it('keeps one current key per controller: a rotation retires that controller\'s earlier key until its deadline, and no other controller\'s', async () => {
    const database = await openTestDatabase();
    try {
      const keys = createSigningKeyRepository(database);
      const [a1, a2, b] = [await signingKey('kid-a1'), await signingKey('kid-a2'), await signingKey('kid-b')];
      const publish = (owner: string, signingKey: ServerSigningKey, minutes: number) =>
        publishSigningKey({ keys, owner, signingKey, issuers: [`https://${owner}/oidc`], now: at(minutes), longestTokenLifetimeMs: 30 * MINUTE });
      await publish('ctrl-a', a1, 0);
      await publish('ctrl-b', b, 1);
      await publish('ctrl-a', a2, 10);
      const published = await keys.published(at(11));
      assert.deepEqual(
        published.map((key) => [key.kid, key.owner, key.retiredAt === null ? 'current' : key.publishUntil?.toISOString()]).sort(),
        [['kid-a1', 'ctrl-a', at(40).toISOString()], ['kid-a2', 'ctrl-a', 'current'], ['kid-b', 'ctrl-b', 'current']],
      );
      assert.deepEqual(published.find((key) => key.kid === 'kid-b')?.issuers, ['https://ctrl-b/oidc']);
      assert.deepEqual((await keys.published(at(41))).map((key) => key.kid).sort(), ['kid-a2', 'kid-b'], 'the retired key goes at its deadline');
      // Going back to a1 makes it current again and retires a2; b stays current throughout.
      await publish('ctrl-a', a1, 50);
      assert.deepEqual(
        (await keys.published(at(51))).map((key) => [key.kid, key.retiredAt === null]).sort(),
        [['kid-a1', true], ['kid-a2', false], ['kid-b', true]],
      );
    } finally {
      await database.close();
    }
  });
});

describe('token verification with the keys of every controller', () => {
  it('verifies a token of a retired key and publishes that key until its deadline only', async () => {
    const [old, current] = [await signingKey(hexKid('1')), await signingKey(hexKid('2'))];
    const token = (await signerWith(old, await keySetOf(old, [ISSUER])).signAccess({ issuer: ISSUER, identity, session, now: at(0) })).token;
    const signer = signerWith(current, await keySetOf(current, [ISSUER], [keyRow(old, [ISSUER], { retiredAt: at(1), publishUntil: at(35) })], at(1)));
    assert.equal((await signer.verify(token, at(5))).sub, 'id-1');
    assert.deepEqual(kids(await signer.jwks(at(5))), [current.kid, old.kid]);
    assert.deepEqual(kids(await signer.jwks(at(35))), [current.kid]);
    await assert.rejects(signer.verify(token, at(35), { allowExpired: true }), invalid);
  });

  it("verifies another controller's token under that controller's issuer, and refuses an issuer no controller signs for", async () => {
    const [mine, theirs] = [await signingKey(hexKid('1')), await signingKey(hexKid('2'))];
    const signer = signerWith(mine, await keySetOf(mine, [ISSUER], [keyRow(theirs, [OTHER_ISSUER])], at(0)));
    const theirSigner = signerWith(theirs, await keySetOf(theirs, [OTHER_ISSUER]));
    const token = (await theirSigner.signAccess({ issuer: OTHER_ISSUER, identity, session, now: at(0) })).token;
    assert.equal((await signer.verify(token, at(1))).iss, OTHER_ISSUER);
    // Our own key signing for the other controller's issuer: a session started there and refreshed here.
    assert.equal((await signer.verify((await signer.signAccess({ issuer: OTHER_ISSUER, identity, session, now: at(0) })).token, at(1))).iss, OTHER_ISSUER);
    const stranger = (await theirSigner.signAccess({ issuer: 'https://elsewhere:1280/oidc', identity, session, now: at(0) })).token;
    await assert.rejects(signer.verify(stranger, at(1)), invalid);
    assert.deepEqual(kids(await signer.jwks(at(1))), [mine.kid, theirs.kid], 'the JWKS publishes both, ours first');
  });

  it('reads the store again for a kid it does not know, so a controller started later is accepted', async () => {
    const [mine, theirs] = [await signingKey(hexKid('1')), await signingKey(hexKid('2'))];
    const store = fakeKeyStore();
    let clock = 0;
    const keys = await loadPublishedKeys({ keys: store, own: { signingKey: mine, issuers: [ISSUER] }, monotonic: () => clock }, at(0));
    const signer = signerWith(mine, keys);
    const token = (await signerWith(theirs, await keySetOf(theirs, [OTHER_ISSUER])).signAccess({ issuer: OTHER_ISSUER, identity, session, now: at(0) })).token;
    store.rows.push(keyRow(theirs, [OTHER_ISSUER]));
    clock += 1_000;
    assert.equal((await signer.verify(token, at(1))).iss, OTHER_ISSUER);
    assert.equal(store.reads, 2, 'the start and one re-read');
  });

  it('re-reads the store at most once per interval however many unknown kids arrive, and never for a malformed token', async () => {
    const [mine, forger] = [await signingKey(hexKid('1')), await signingKey(hexKid('f'))];
    const store = fakeKeyStore();
    let clock = 0;
    const signer = signerWith(mine, await loadPublishedKeys({ keys: store, own: { signingKey: mine, issuers: [ISSUER] }, monotonic: () => clock }, at(0)));
    const madeUp = (i: number) =>
      new SignJWT({ z_t: 'a' }).setProtectedHeader({ alg: 'ES256', kid: i.toString(16).padStart(40, '0') }).setIssuer(ISSUER).setAudience('svc').setSubject('id-1').setIssuedAt().setExpirationTime('5m').sign(forger.key);
    clock += 1_000;
    const flood = await Promise.all(Array.from({ length: 50 }, (_, i) => madeUp(i + 16)));
    const outcomes = await Promise.allSettled(flood.map((token) => signer.verify(token, new Date())));
    assert.ok(outcomes.every((outcome) => outcome.status === 'rejected' && invalid(outcome.reason)));
    assert.equal(store.reads, 2, 'fifty unknown kids within one interval: one re-read');
    clock += 1_000;
    const malformed = await new SignJWT({ z_t: 'a' }).setProtectedHeader({ alg: 'ES256', kid: 'not-a-fingerprint' }).setIssuer(ISSUER).setAudience('svc').sign(forger.key);
    await assert.rejects(signer.verify(malformed, new Date()), invalid);
    await assert.rejects(signer.verify('not.a.jwt', new Date()), invalid);
    assert.equal(store.reads, 2, 'a kid not of our form never reaches the store');
  });

  it("refuses a token whose kid names a retired key but whose algorithm is not that key's", async () => {
    const [old, current] = [await signingKey(hexKid('1')), await signingKey(hexKid('2'))];
    const other = await generateKeyPair('ES384');
    const forged = await new SignJWT({ z_t: 'a' }).setProtectedHeader({ alg: 'ES384', kid: old.kid }).setIssuer(ISSUER).setAudience('svc').setSubject('id-1').setIssuedAt().setExpirationTime('5m').sign(other.privateKey);
    const signer = signerWith(current, await keySetOf(current, [ISSUER], [keyRow(old, [ISSUER], { retiredAt: new Date(), publishUntil: new Date(Date.now() + 35 * MINUTE) })]));
    await assert.rejects(signer.verify(forged, new Date()), invalid);
  });
});
