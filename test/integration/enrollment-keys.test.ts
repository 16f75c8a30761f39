/**
 * The enrollment key set, the enrollment challenge and the network JWT (spec: Enrollment challenge request/response,
 * Enrollment JWKS response; reference `listNetworkJWTs`): the JWKS lists the current key and every retired key while
 * a JWT it signed is live; the challenge answer verifies with the JWKS key it names.
 */
import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, randomUUID, verify } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, decodeJwt, exportJWK, jwtVerify, SignJWT } from 'jose';
import { recordChange } from '../../src/persistence/repositories/authorization-changes.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createEnrollment } from '../helpers/enrollment.js';
import { createIdentity } from '../helpers/fixtures.js';

const CLIENT = '/edge/client/v1';

describe(`enrollment keys, challenge and network JWT (${testDialect})`, () => {
  let ctl: TestController;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
  });
  after(async () => ctl.close());

  const jwks = async () => (await ctl.fetch(`${CLIENT}/enroll/jwks`)).json();
  const challenge = (body: unknown) => ctl.fetch(`${CLIENT}/enroll/challenge`, { method: 'POST', body: body as object });

  it('signs the nonce with the named key so that the JWKS key verifies it, and sends the CA pool', async () => {
    const [key] = (await jwks()).keys;
    const nonce = randomUUID();
    const res = await challenge({ keyId: key.kid, nonce });
    assert.equal(res.status, 200, res.text);
    const { algorithm, caPool, kid, signature } = res.json().data;
    assert.equal(kid, key.kid);
    assert.equal(algorithm, key.alg);
    assert.match(caPool, /-----BEGIN CERTIFICATE-----/);
    const publicKey = createPublicKey({ key, format: 'jwk' });
    assert.equal(verify('sha256', Buffer.from(nonce), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url')), true);
    assert.equal(verify('sha256', Buffer.from(randomUUID()), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url')), false, 'bound to the nonce');
  });

  it('refuses a key it does not hold, a nonce that is not a UUID and missing fields with a 400 naming the field', async () => {
    const cases = [
      { body: { keyId: 'not-our-key', nonce: randomUUID() }, code: 'INVALID_ENROLLMENT_KEY', field: 'keyId' },
      { body: { keyId: 'x', nonce: 'not-a-uuid' }, code: 'COULD_NOT_VALIDATE', field: 'nonce' },
      { body: { nonce: randomUUID() }, code: 'COULD_NOT_VALIDATE', field: 'keyId' },
      { body: { keyId: 'x', nonce: randomUUID(), extra: 1 }, code: 'COULD_NOT_VALIDATE', field: 'extra' },
    ];
    for (const c of cases) {
      const res = await challenge(c.body);
      assert.equal(res.status, 400, JSON.stringify(c.body));
      assert.equal(res.json().error.code, c.code);
      assert.match(JSON.stringify(res.json().error.cause), new RegExp(c.field), JSON.stringify(res.json().error));
    }
  });

  it('lists a retired key while an enrollment JWT it signed is live, and drops it once that JWT expires', async () => {
    const before = (await jwks()).keys;
    assert.equal(before.length, 1);
    // A key this store once signed with (another controller's, or a replaced server certificate's).
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const kid = 'retired-key-kid';
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
    await ctl.running.database.db.insertInto('enrollment_signing_keys').values({ kid, public_jwk: JSON.stringify(publicJwk), created_at: new Date().toISOString() }).execute();
    const identity = await createIdentity(ctl.running.database, { name: 'retired-key-device' });
    const enrollment = await createEnrollment(ctl, { identityId: identity.id, method: 'ott' });
    const oldJwt = await new SignJWT({ em: 'ott' }).setProtectedHeader({ alg: 'ES256', kid }).setSubject(identity.id).setJti(enrollment.token).sign(privateKey);
    await ctl.running.database.db.updateTable('enrollments').set({ jwt: oldJwt }).where('id', '=', enrollment.id).execute();
    await recordChange(ctl.running.database, 'identity', identity.id);

    const during = await jwks();
    assert.deepEqual(during.keys.map((k: { kid: string }) => k.kid), [before[0].kid, kid], 'current first, then the retired key');
    await jwtVerify(oldJwt, createLocalJWKSet(during));

    await ctl.running.database.db.updateTable('enrollments').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', enrollment.id).execute();
    await recordChange(ctl.running.database, 'identity', identity.id);
    assert.deepEqual((await jwks()).keys.map((k: { kid: string }) => k.kid), [before[0].kid]);
  });

  it('serves the network JWT on both APIs: em network, the controller as iss and sub, signed by the enrollment key, no expiry', async () => {
    for (const prefix of [CLIENT, '/edge/management/v1']) {
      const res = await ctl.fetch(`${prefix}/network-jwts`);
      assert.equal(res.status, 200, res.text);
      const [entry, ...rest] = res.json().data;
      assert.deepEqual(rest, []);
      assert.equal(entry.name, 'default');
      const { payload } = await jwtVerify(entry.token, createLocalJWKSet(await jwks()), { audience: 'svc-enroller' });
      assert.equal(payload.em, 'network');
      assert.equal(payload.iss, `${ctl.baseUrl}/`);
      assert.equal(payload.sub, payload.iss);
      assert.equal(decodeJwt(entry.token).exp, undefined);
    }
  });
});
