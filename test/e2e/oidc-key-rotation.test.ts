/**
 * Signing-key rotation: when the controller restarts with a new server certificate (so a new signing key) on the
 * same store, the previous key stays in `/oidc/keys` and tokens it signed keep working on the Edge APIs until the
 * longest token lifetime has passed; then the old key is no longer published.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, customFetch, decodeProtectedHeader, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { createControllerPki, type PkiPaths } from '../../src/pki/index.js';
import { manualClock } from '../../src/shared/clock.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { newSharedDatabase, testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { request } from '../helpers/https.js';
import { caFetch, discoverClient, loginToCallback } from '../helpers/oidc.js';

const MINUTE = 60_000;

describe(`OIDC signing-key rotation across a server certificate change (${testDialect})`, () => {
  const clock = manualClock(new Date());
  let shared: { db: string; drop(): Promise<void> };
  let pkiDir: string;
  let first: TestController | undefined;
  let second: TestController | undefined;
  let secondCa: string;
  let oldTokens: { access_token: string; id_token?: string };
  let oldKid: string;
  let issuer: string;

  before(async () => {
    shared = await newSharedDatabase();
    first = await startTestController({ databaseTarget: shared.db, clock });
    await createIdentity(first.running.database, { name: 'alice', username: 'alice', password: 'alice-password' });
    const config = await discoverClient(first);
    const login = await loginToCallback(first, config, 'alice', 'alice-password');
    oldTokens = await client.authorizationCodeGrant(config, login.callback, { pkceCodeVerifier: login.verifier, expectedState: login.state, expectedNonce: login.nonce });
    oldKid = decodeProtectedHeader(oldTokens.access_token).kid as string;
    issuer = `${first.baseUrl}/oidc`;
    const ports = first.ports;
    await first.close();
    first = undefined;

    pkiDir = mkdtempSync(join(tmpdir(), 'svc-test-pki-2-'));
    const pki: PkiPaths = await createControllerPki(pkiDir, { hosts: ['127.0.0.1', 'localhost'], commonName: 'svc-test-controller-2' });
    secondCa = readFileSync(pki.caBundle, 'utf8');
    second = await startTestController({
      databaseTarget: shared.db,
      ports,
      clock,
      modify(config) {
        config.identity = { cert: pki.clientCert, key: pki.clientKey, server_cert: pki.serverCert, server_key: pki.serverKey, ca: pki.caBundle };
      },
    });
  });
  after(async () => {
    // A failure half-way must not leave a controller listening (the test process would never end).
    await first?.close();
    await second?.close();
    await shared?.drop();
    if (pkiDir) rmSync(pkiDir, { recursive: true, force: true });
  });

  const ctl = () => second as TestController;
  // The second controller's TLS certificate comes from its own PKI.
  const get = (path: string, token?: string) => request(`${ctl().baseUrl}${path}`, { ca: secondCa, ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}) });

  it('publishes the previous key beside the new one', async () => {
    const res = await get('/oidc/keys');
    assert.equal(res.status, 200);
    const kids = res.json().keys.map((key: { kid: string }) => key.kid);
    assert.equal(kids.length, 2);
    assert.ok(kids.includes(oldKid));
    assert.notEqual(kids[0], oldKid, 'the current key comes first');
  });

  it('still accepts an access token signed with the previous key, and a relying party can verify it', async () => {
    const session = await get('/edge/client/v1/current-api-session', oldTokens.access_token);
    assert.equal(session.status, 200, session.text);
    assert.equal(session.json().data.identity.name, 'alice');
    const jwks = createRemoteJWKSet(new URL(`${ctl().baseUrl}/oidc/keys`), { [customFetch]: caFetch(secondCa) as never });
    const { payload } = await jwtVerify(oldTokens.access_token, jwks, { issuer, audience: 'svc', currentDate: clock.now() });
    assert.equal(payload.z_t, 'a');
  });

  it('signs new tokens with the new key', async () => {
    const config = await discoverClient({ ...ctl(), ca: secondCa });
    const login = await loginToCallback({ ...ctl(), ca: secondCa, fetch: (path, options = {}) => request(path.startsWith('https://') ? path : `${ctl().baseUrl}${path}`, { ...options, ca: secondCa }) }, config, 'alice', 'alice-password');
    const tokens = await client.authorizationCodeGrant(config, login.callback, { pkceCodeVerifier: login.verifier, expectedState: login.state, expectedNonce: login.nonce });
    assert.notEqual(decodeProtectedHeader(tokens.access_token).kid, oldKid);
    assert.equal((await get('/edge/client/v1/current-identity', tokens.access_token)).status, 200);
  });

  it('stops publishing the previous key once the longest token lifetime has passed', async () => {
    clock.advance(31 * MINUTE);
    const kids = (await get('/oidc/keys')).json().keys.map((key: { kid: string }) => key.kid);
    assert.deepEqual(kids.length, 1);
    assert.ok(!kids.includes(oldKid));
    const res = await get('/edge/client/v1/current-api-session', oldTokens.access_token);
    assert.equal(res.status, 401);
  });
});
