/**
 * Canonical signatures (issue 40, item 9; decision 0060): every ECDSA token the controller issues carries a low S,
 * and the high-S twin of one (S replaced by n − S, a signature that verifies just the same) is refused wherever a
 * token comes back: as a Bearer credential on the Client API and at /oidc/userinfo. The originals are the controls.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { ecdsaTwin, tokenHasLowS } from '../helpers/ecdsa-twin.js';
import { createIdentity } from '../helpers/fixtures.js';
import { passwordLoginTokens } from '../helpers/oidc.js';

describe(`canonical signatures (${testDialect})`, () => {
  let ctl: TestController;
  before(async () => {
    ctl = await startTestController();
    await createIdentity(ctl.running.database, { name: 'carol', username: 'carol', password: 'carol-password' });
  });
  after(async () => ctl.close());

  const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

  it('refuses the high-S twin of an access token on the Client API with realm svc-oidc error invalid, and accepts the token itself', async () => {
    const { accessToken } = await passwordLoginTokens(ctl, 'carol', 'carol-password');
    const twin = await ctl.fetch('/edge/client/v1/current-identity', bearer(ecdsaTwin(accessToken)));
    assert.equal(twin.status, 401, twin.text);
    assert.match(twin.headerValues('www-authenticate').join(), /realm="svc-oidc" error="invalid"/);
    const original = await ctl.fetch('/edge/client/v1/current-identity', bearer(accessToken));
    assert.equal(original.status, 200, original.text);
    assert.equal(original.json().data.name, 'carol');
  });

  it('refuses the high-S twin of an access token at /oidc/userinfo with invalid_token, and accepts the token itself', async () => {
    const { accessToken } = await passwordLoginTokens(ctl, 'carol', 'carol-password');
    const twin = await ctl.fetch('/oidc/userinfo', bearer(ecdsaTwin(accessToken)));
    assert.equal(twin.status, 401, twin.text);
    assert.equal(twin.json().error, 'invalid_token');
    const original = await ctl.fetch('/oidc/userinfo', bearer(accessToken));
    assert.equal(original.status, 200, original.text);
    assert.equal(original.json().name, 'carol');
  });

  it('issues access tokens and network JWTs with a low S only', async () => {
    // Half of all raw ECDSA signatures have a high S: 24 low ones in a row by chance is a 2^-24 event.
    const logins = await Promise.all(Array.from({ length: 4 }, () => passwordLoginTokens(ctl, 'carol', 'carol-password')));
    const networkJwts = await Promise.all(Array.from({ length: 20 }, async () => (await ctl.fetch('/edge/client/v1/network-jwts')).json().data[0].token as string));
    const tokens = [...logins.map((login) => login.accessToken), ...networkJwts];
    assert.deepEqual(tokens.filter((token) => !tokenHasLowS(token)), []);
  });
});
