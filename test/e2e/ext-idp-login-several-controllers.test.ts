/**
 * The login page's sign-in at an external IdP with two controllers on one store behind one address (decision 0084,
 * decision 0034): a callback URL used at one controller is refused at the other exactly as a reuse at the first is,
 * and creates nothing; a callback of a flow started at one controller signs in at the other (the positive control).
 * Both controllers advertise the first one's address, as behind a load balancer, so the IdP's registered callback
 * and the OIDC issuer are the same at both. Real controllers, store and IdP (a third controller) on loopback.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { newSharedDatabase, testDialect } from '../helpers/database.js';
import { cookieHeader, idpSignerBody, signInAtIdp } from '../helpers/external-idp.js';
import { createIdentity, updateIdentityRow } from '../helpers/fixtures.js';
import { createdId, managementClient } from '../helpers/management.js';
import { discoverClient, REDIRECT_URI, startLogin } from '../helpers/oidc.js';
import type * as client from 'openid-client';

const HTML = { accept: 'text/html' };
const continuesTo = (text: string) => /<meta http-equiv="refresh" content="0;url=([^"]+)">/.exec(text)?.[1];
const problemOf = (text: string) => /role="alert" id="problem">([^<]*)</.exec(text)?.[1];
const buttonOf = (text: string) => /<a class="button" href="(\/oidc\/login\/ext-idp\?[^"]*)">Continue with Shared IdP</.exec(text)?.[1]?.replace(/&#38;/g, '&');

describe(`login with an external identity provider at two controllers on one store (${testDialect})`, () => {
  let shared: { db: string; drop(): Promise<void> };
  let a: TestController;
  let b: TestController;
  let idp: TestController;
  let config: client.Configuration;

  before(async () => {
    shared = await newSharedDatabase();
    a = await startTestController({ databaseTarget: shared.db });
    const advertised = a.baseUrl.replace('https://', '');
    b = await startTestController({
      databaseTarget: shared.db,
      modify: (c) => {
        c.web[0].bindPoints[0].address = advertised;
        c.edge.api.address = advertised;
      },
    });
    const callbackUrl = `${a.baseUrl}/oidc/ext-idp/callback`;
    idp = await startTestController({ modify: (c) => c.web[0].apis.push({ binding: 'edge-oidc', options: { redirectURIs: [callbackUrl, REDIRECT_URI] } }) });
    const alice = await createIdentity(idp.running.database, { name: 'alice', username: 'alice', password: 'alice-password-1' });
    await createdId(managementClient(a, await a.adminToken()), '/external-jwt-signers', idpSignerBody(idp, 'Shared IdP'));
    const aliceHere = (await createIdentity(a.running.database, { name: 'alice-here' })).id;
    await updateIdentityRow(a.running.database, aliceHere, { external_id: alice.id });
    config = await discoverClient(a);
  });
  after(async () => {
    await idp?.close();
    await b?.close();
    await a?.close();
    await shared?.drop();
  });

  const sessions = async () => Number((await a.running.database.db.selectFrom('oidc_sessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  /** A flow started on the login page at controller A and signed in at the IdP: the callback URL and the browser's cookie. */
  async function signedInAtIdp() {
    const started = await startLogin(a, config);
    const page = await a.fetch(started.location.toString(), { headers: HTML });
    const href = buttonOf(page.text);
    assert.ok(href, page.text);
    const res = await a.fetch(href);
    assert.equal(res.status, 302, res.text);
    const back = await signInAtIdp(idp, String(res.headers.location), 'alice', 'alice-password-1');
    return { callback: `${back.pathname}${back.search}`, cookie: cookieHeader(res.headerValues('set-cookie')) };
  }

  it('signs in at the second controller with a callback of a flow started at the first (positive control)', async () => {
    const { callback, cookie } = await signedInAtIdp();
    const before = await sessions();
    const res = await b.fetch(callback, { headers: { ...HTML, cookie } });
    assert.equal(res.status, 200, res.text);
    assert.match(continuesTo(res.text) ?? '', /^\/oidc\/authorize\/callback\?id=/, res.text);
    assert.equal(await sessions(), before, 'the OIDC session starts when the client redeems its code, not here');
  });

  it('refuses at the second controller a callback used at the first, with the answer a reuse at the first gets, creating nothing', async () => {
    const { callback, cookie } = await signedInAtIdp();
    const used = await a.fetch(callback, { headers: { ...HTML, cookie } });
    assert.ok(continuesTo(used.text), used.text);
    const atA = await a.fetch(callback, { headers: { ...HTML, cookie } });
    const before = [await sessions(), (await a.running.database.db.selectFrom('oidc_auth_requests').selectAll().execute()).length];
    const atB = await b.fetch(callback, { headers: { ...HTML, cookie } });
    assert.equal(atB.status, 400, atB.text);
    assert.equal(atB.status, atA.status);
    assert.match(problemOf(atB.text) ?? '', /already used or expired/, atB.text);
    assert.equal(problemOf(atB.text), problemOf(atA.text));
    assert.match(atB.text, /name="password"/, 'the sign-in of the auth request is offered again, as at the first');
    assert.equal(continuesTo(atB.text), undefined, 'nobody is signed in');
    assert.deepEqual([await sessions(), (await a.running.database.db.selectFrom('oidc_auth_requests').selectAll().execute()).length], before);
  });

  it('refuses at the first controller a callback used at the second', async () => {
    const { callback, cookie } = await signedInAtIdp();
    assert.ok(continuesTo((await b.fetch(callback, { headers: { ...HTML, cookie } })).text));
    const atA = await a.fetch(callback, { headers: { ...HTML, cookie } });
    assert.equal(atA.status, 400, atA.text);
    assert.match(problemOf(atA.text) ?? '', /already used or expired/, atA.text);
  });
});
