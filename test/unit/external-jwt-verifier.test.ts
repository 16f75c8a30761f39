/**
 * The external JWT verifier on a real store and a real local HTTPS JWKS server, with tokens made by `jose`: every
 * check a token can fail names itself in plain words, a valid token maps to its identity (by id or externalId), an
 * unknown kid re-fetches the JWKS once per interval, and a signer whose keys cannot be fetched fails closed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { base64url, CompactSign, SignJWT } from 'jose';
import { DEFAULT_EXTERNAL_JWT } from '../../src/config/edge-rules.js';
import type { ExternalJwtConfig } from '../../src/config/types.js';
import type { ExternalJwtSigner } from '../../src/domain/external-jwt-signer.js';
import type { Identity } from '../../src/domain/identity.js';
import { formatChallenge } from '../../src/http/kit/errors.js';
import type { Database } from '../../src/persistence/database.js';
import { createExternalJwtSignerRepository } from '../../src/persistence/repositories/external-jwt-signers.js';
import { createIdentityRepository } from '../../src/persistence/repositories/identities.js';
import { createControllerPki, type PkiPaths } from '../../src/pki/index.js';
import { manualClock } from '../../src/shared/clock.js';
import { newEntityId } from '../../src/shared/random.js';
import { createExternalJwtVerifier, extJwtChallengeError, type ExtJwtCheck, type ExtJwtResult } from '../../src/services/external-jwt/external-jwt.js';
import { signerFields } from '../../src/services/external-jwt/external-jwt-signer-input.js';
import { identityFields } from '../../src/services/identities/identity-input.js';
import { createJwksFetcher } from '../../src/services/external-jwt/jwks-fetcher.js';
import { openTestDatabase, testDialect } from '../helpers/database.js';
import { AUDIENCE, ISSUER, signingCertificate, signingKey, signToken, startJwksServer, type JwksServer, type SigningKey } from '../helpers/external-jwt.js';

const START = new Date('2030-06-01T12:00:00Z');
const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

describe(`the external JWT verifier (${testDialect})`, () => {
  let dir: string;
  let pki: PkiPaths;
  let server: JwksServer;
  let database: Database;
  let key: SigningKey;
  let alice: Identity;
  const clock = manualClock(START);

  const identities = () => createIdentityRepository(database);
  const signers = () => createExternalJwtSignerRepository(database);

  async function addIdentity(name: string, fields: Partial<Identity> = {}): Promise<Identity> {
    const base = identityFields({ name, type: 'User', isAdmin: false });
    const identity: Identity = { id: newEntityId(), ...base, isDefaultAdmin: false, disabled: false, disabledAt: null, disabledUntil: null, sdkInfo: {}, envInfo: {}, createdAt: START, updatedAt: START, ...fields };
    await identities().insert(identity);
    return identity;
  }

  async function addSigner(fields: Partial<ExternalJwtSigner> = {}): Promise<ExternalJwtSigner> {
    const id = newEntityId();
    const base = signerFields({ name: `signer-${id}`, issuer: ISSUER, audience: AUDIENCE, enabled: true, jwksEndpoint: `${server.origin}/jwks` });
    const signer: ExternalJwtSigner = { id, ...base, createdAt: START, updatedAt: START, ...fields };
    await signers().insert(signer);
    return signer;
  }

  const verifier = (config: Partial<ExternalJwtConfig> = {}) =>
    createExternalJwtVerifier({
      signers: signers(),
      identities: identities(),
      fetcher: createJwksFetcher({ config: { ...DEFAULT_EXTERNAL_JWT, ...config }, clock, caPems: [readFileSync(pki.caBundle, 'utf8')] }),
      clock,
    });

  const token = (claims: Record<string, unknown>, options: Partial<Parameters<typeof signToken>[1]> = {}) => signToken(claims, { key, now: clock.now(), ...options });

  /** The failing check and its message, or 'ok'. */
  const outcome = (result: ExtJwtResult) => (result.ok ? 'ok' : result.failure.check);
  const refused = (result: ExtJwtResult, check: ExtJwtCheck) => {
    assert.equal(result.ok, false, `expected ${check}, the token was accepted`);
    if (result.ok) return undefined as never;
    assert.equal(result.failure.check, check, result.failure.message);
    return result.failure;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-extjwt-test-'));
    pki = await createControllerPki(dir, { hosts: ['127.0.0.1'], commonName: 'ext-jwt-test' });
    server = await startJwksServer(pki);
    database = await openTestDatabase();
    key = await signingKey('key-1');
    server.jwks.keys.push(key.publicJwk);
    alice = await addIdentity('alice', { externalId: 'alice@idp' });
  });
  after(async () => {
    await database.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('accepts a valid token and returns the identity named by sub, with the claims', async () => {
    const signer = await addSigner();
    const result = await verifier().check(signer.id, await token({ sub: alice.id, email: 'alice@example.test' }));
    assert.equal(result.ok, true);
    if (!result.ok) return;
    assert.deepEqual([result.identity.id, result.signer.id, result.claims.email], [alice.id, signer.id, 'alice@example.test']);
  });

  it('matches a JSON-pointer claimsProperty to the externalId when useExternalId is set', async () => {
    const signer = await addSigner({ claimsProperty: '/user/login', useExternalId: true });
    const result = await verifier().check(signer.id, await token({ sub: 'ignored', user: { login: 'alice@idp' } }));
    assert.equal(result.ok && result.identity.id, alice.id);
  });

  it('accepts RS256, PS256 and EdDSA keys too', async () => {
    const signer = await addSigner();
    for (const alg of ['RS256', 'PS256', 'EdDSA']) {
      const other = await signingKey(`key-${alg}`, alg);
      server.jwks.keys.push(other.publicJwk);
      assert.equal(outcome(await verifier().check(signer.id, await token({ sub: alice.id }, { key: other }))), 'ok', alg);
    }
  });

  it('verifies with a certPem signer, and refuses a kid other than the signer kid', async () => {
    const { certPem, key: certKey } = await signingCertificate(pki, 'cert-kid');
    const signer = await addSigner({ certPem, jwksEndpoint: null, kid: 'cert-kid' });
    assert.equal(outcome(await verifier().check(signer.id, await token({ sub: alice.id }, { key: certKey }))), 'ok');
    assert.equal(outcome(await verifier().check(signer.id, await token({ sub: alice.id }, { key: certKey, kid: null }))), 'ok');
    const failure = refused(await verifier().check(signer.id, await token({ sub: alice.id }, { key: certKey, kid: 'other' })), 'kid-not-found');
    assert.match(failure.message, /kid "other" is not the signer's kid "cert-kid"/);
  });

  it('refuses alg none and HS256, whatever the signature says', async () => {
    const signer = await addSigner();
    const encode = (value: object) => base64url.encode(JSON.stringify(value));
    const unsigned = `${encode({ alg: 'none', kid: key.kid })}.${encode({ sub: alice.id, iss: ISSUER, aud: AUDIENCE, exp: seconds(START) + 600 })}.`;
    assert.match(refused(await verifier().check(signer.id, unsigned), 'algorithm').message, /algorithm none is refused: only asymmetric signatures/);
    const hmac = await new SignJWT({ sub: alice.id })
      .setProtectedHeader({ alg: 'HS256', kid: key.kid })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime(seconds(START) + 600)
      .sign(new TextEncoder().encode(JSON.stringify(key.publicJwk)));
    assert.match(refused(await verifier().check(signer.id, hmac), 'algorithm').message, /algorithm HS256 is refused/);
  });

  it('refuses a token signed by another key under the same kid', async () => {
    const signer = await addSigner();
    const impostor = await signingKey(key.kid);
    assert.match(refused(await verifier().check(signer.id, await token({ sub: alice.id }, { key: impostor })), 'signature').message, /signature does not verify/);
  });

  it('names both issuers on an issuer mismatch, and the audience on an audience mismatch', async () => {
    const signer = await addSigner();
    const issuer = refused(await verifier().check(signer.id, await token({ sub: alice.id }, { issuer: 'https://evil.example' })), 'issuer');
    assert.equal(issuer.message, `issuer mismatch: the token's iss is "https://evil.example", the signer expects "${ISSUER}"`);
    assert.equal(issuer.error, 'invalid');
    const audience = refused(await verifier().check(signer.id, await token({ sub: alice.id }, { audience: ['other', 'another'] })), 'audience');
    assert.match(audience.message, /the token's aud is \["other","another"\], which does not contain the signer's audience "svc-test"/);
    assert.equal(outcome(await verifier().check(signer.id, await token({ sub: alice.id }, { audience: ['other', AUDIENCE] }))), 'ok');
  });

  it('refuses an expired token as expired, naming exp, now and the allowed skew, but tolerates 30s of skew', async () => {
    const signer = await addSigner();
    const exp = seconds(START) - 31;
    const failure = refused(await verifier().check(signer.id, await token({ sub: alice.id }, { exp })), 'expired');
    assert.equal(failure.error, 'expired');
    assert.equal(failure.message, `the token expired at ${new Date(exp * 1000).toISOString()} (exp ${exp}); now is ${START.toISOString()}, allowed clock skew 30s`);
    assert.equal(outcome(await verifier().check(signer.id, await token({ sub: alice.id }, { exp: seconds(START) - 29 }))), 'ok');
  });

  it('refuses a token not valid yet, and one without exp', async () => {
    const signer = await addSigner();
    const nbf = seconds(START) + 120;
    assert.match(refused(await verifier().check(signer.id, await token({ sub: alice.id }, { nbf })), 'not-yet-valid').message, /not valid before .* \(nbf \d+\); now is/);
    const noExp = await new SignJWT({ sub: alice.id }).setProtectedHeader({ alg: key.alg, kid: key.kid }).setIssuer(ISSUER).setAudience(AUDIENCE).sign(key.privateKey);
    assert.match(refused(await verifier().check(signer.id, noExp), 'malformed').message, /no usable numeric exp/);
    // Signed numbers JSON reads as Infinity or beyond any date: refused, never taken as "never expires" or a crash.
    for (const claims of [`"exp":1e999`, `"exp":${seconds(START) + 600},"nbf":-1e999`, `"exp":${seconds(START) + 600},"nbf":1e300`]) {
      const payload = `{"sub":"${alice.id}","iss":"${ISSUER}","aud":"${AUDIENCE}",${claims}}`;
      const jws = await new CompactSign(new TextEncoder().encode(payload)).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
      refused(await verifier().check(signer.id, jws), 'malformed');
    }
  });

  it('refuses what is not a JWS', async () => {
    const signer = await addSigner();
    for (const garbage of ['not-a-token', 'a.b.c', 'x'.repeat(20_000)]) refused(await verifier().check(signer.id, garbage), 'malformed');
  });

  it('refuses a token without the claimsProperty claim, or naming no identity, or a disabled one', async () => {
    const signer = await addSigner({ claimsProperty: '/user/id' });
    assert.equal(refused(await verifier().check(signer.id, await token({ sub: alice.id })), 'claim-missing').message, "the claim /user/id (the signer's claimsProperty) is missing");
    assert.match(refused(await verifier().check(signer.id, await token({ user: { id: 42 } })), 'claim-missing').message, /is a number, not a string/);
    assert.equal(refused(await verifier().check(signer.id, await token({ user: { id: 'nobody' } })), 'no-identity').message, 'no identity has the id "nobody" (claim /user/id)');
    const bob = await addIdentity('bob', { disabled: true, disabledAt: START });
    assert.match(refused(await verifier().check(signer.id, await token({ user: { id: bob.id } })), 'identity-disabled').message, /bob .* is disabled/);
  });

  it('refuses tokens for a disabled or unknown signer', async () => {
    const signer = await addSigner({ enabled: false });
    refused(await verifier().check(signer.id, await token({ sub: alice.id })), 'signer-disabled');
    refused(await verifier().check('no-such-signer', await token({ sub: alice.id })), 'signer-disabled');
  });

  it('re-fetches the JWKS for an unknown kid at most once per refresh interval', async () => {
    const signer = await addSigner();
    const check = verifier({ jwksRefreshIntervalMs: 30_000 });
    const before = server.hits.get('/jwks') ?? 0;
    assert.equal(outcome(await check.check(signer.id, await token({ sub: alice.id }))), 'ok');
    clock.advance(30_000);
    const rotated = await signingKey('key-rotated');
    const failure = refused(await check.check(signer.id, await token({ sub: alice.id }, { key: rotated })), 'kid-not-found');
    assert.match(failure.message, /no key with kid "key-rotated" in the signer's JWKS .* fits ES256, also after fetching it again/);
    assert.equal(server.hits.get('/jwks'), before + 2);
    // The provider publishes the key now, but unknown kids within the interval fetch nothing.
    server.jwks.keys.push(rotated.publicJwk);
    refused(await check.check(signer.id, await token({ sub: alice.id }, { key: await signingKey('key-unknown') })), 'kid-not-found');
    const early = refused(await check.check(signer.id, await token({ sub: alice.id }, { key: rotated })), 'kid-not-found');
    assert.match(early.message, /fetched recently \(at most once per edge\.externalJwt\.jwksRefreshInterval\)/);
    assert.equal(server.hits.get('/jwks'), before + 2);
    clock.advance(30_000);
    assert.equal(outcome(await check.check(signer.id, await token({ sub: alice.id }, { key: rotated }))), 'ok');
    assert.equal(server.hits.get('/jwks'), before + 3);
  });

  it('fails closed with key-unavailable, naming the reason, when the JWKS cannot be fetched', async () => {
    server.route('/big', (_req, res) => res.writeHead(200).end(JSON.stringify({ keys: [key.publicJwk], pad: 'x'.repeat(8192) })));
    server.route('/loop', (_req, res) => res.writeHead(302, { location: '/loop' }).end());
    server.route('/hang', () => {
      /* never answers */
    });
    const cases: Array<[string, Partial<ExternalJwtConfig>, RegExp]> = [
      ['/jwks', { refusePrivateAddresses: true }, /\(refused-address\): 127\.0\.0\.1 resolves to 127\.0\.0\.1 is a loopback address/],
      ['/big', { jwksMaxBytes: 4096 }, /\(too-large\)/],
      ['/loop', { jwksMaxRedirects: 3 }, /\(too-many-redirects\)/],
      ['/hang', { jwksTimeoutMs: 200 }, /\(timeout\)/],
    ];
    for (const [path, config, message] of cases) {
      const signer = await addSigner({ jwksEndpoint: `${server.origin}${path}` });
      const failure = refused(await verifier(config).check(signer.id, await token({ sub: alice.id, secret: 'token-content' })), 'key-unavailable');
      assert.match(failure.message, message);
      assert.doesNotMatch(failure.message, /token-content/);
    }
  });

  it('offers the enabled signers of the token issuer as login candidates, else every enabled signer', async () => {
    const own = await addSigner({ issuer: 'https://own.example' });
    await addSigner({ issuer: 'https://own.example', enabled: false });
    const check = verifier();
    assert.deepEqual((await check.candidates(await token({}, { issuer: 'https://own.example' }))).map((s) => s.id), [own.id]);
    const all = (await signers().listEnabled()).map((s) => s.id);
    assert.deepEqual((await check.candidates(await token({}, { issuer: 'https://unknown.example' }))).map((s) => s.id), all);
    assert.deepEqual((await check.candidates('garbage')).map((s) => s.id), all);
  });
});

describe('the external JWT challenge', () => {
  it('names every acceptable signer id and issuer, |-joined, in the realm', () => {
    const signers = [
      { id: 's1', issuer: 'https://a.example' },
      { id: 's2', issuer: 'https://b.example' },
    ] as ExternalJwtSigner[];
    const error = extJwtChallengeError('svc-primary-ext-jwt', 'expired', signers, 'token expired');
    assert.deepEqual([error.status, error.code], [401, 'UNAUTHORIZED']);
    assert.deepEqual(error.challenges.map(formatChallenge), [
      'Bearer realm="svc-primary-ext-jwt" error="expired" error_description="token expired" id="s1|s2" issuer="https://a.example|https://b.example"',
    ]);
  });
});
