/**
 * The login page's external identity provider in Chromium (issue 45, item 6; decision 0084): the button the auth
 * policy allows, the sign-in at a real provider on loopback (a second controller, its own login page driven like a
 * person would), and the way back to the client with a code; a callback the browser did not start refused on a page
 * with one sentence. axe clean and a screenshot of each page.
 *
 * @ui-only: the external IdP flow runs on both stores in test/e2e/ext-idp-login.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage } from '../helpers/browser.js';
import { accessible } from '../helpers/console-session.js';
import { testDialect } from '../helpers/database.js';
import { idpSignerBody, startIdpPair, type IdpPair } from '../helpers/external-idp.js';
import { createIdentity, updateIdentityRow } from '../helpers/fixtures.js';
import { createdId, managementClient } from '../helpers/management.js';
import { REDIRECT_URI } from '../helpers/oidc.js';

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const authorizeUrl = (state: string) =>
  `/oidc/authorization?${new URLSearchParams({ response_type: 'code', client_id: 'svc', redirect_uri: REDIRECT_URI, scope: 'openid', code_challenge: CHALLENGE, code_challenge_method: 'S256', state })}`;

/** Waits for the browser to be sent to the client's redirect URI, and returns that URL. */
async function clientRedirect(page: Page, act: () => Promise<void>): Promise<URL> {
  const [request] = await Promise.all([page.waitForRequest((r) => r.url().startsWith(REDIRECT_URI)), act()]);
  return new URL(request.url());
}

describe(`login page with an external identity provider (${testDialect})`, () => {
  let pair: IdpPair;
  let browser: Browser;

  before(async () => {
    pair = await startIdpPair();
    const { ctl, idp } = pair;
    const admin = managementClient(ctl, await ctl.adminToken());
    const alice = await createIdentity(idp.running.database, { name: 'alice', username: 'alice', password: 'alice-password-1' });
    await createdId(admin, '/external-jwt-signers', idpSignerBody(idp, 'Loopback IdP'));
    const here = await createIdentity(ctl.running.database, { name: 'alice-here' });
    await updateIdentityRow(ctl.running.database, here.id, { external_id: alice.id });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await pair?.idp.close();
    await pair?.ctl.close();
  });

  it('signs in with the identity provider’s button, at the provider’s own login page, and comes back to the client with a code', async () => {
    const page = await newPage(browser, { baseURL: pair.ctl.baseUrl });
    await page.goto(authorizeUrl('ext-1'));
    const button = page.getByRole('link', { name: 'Continue with Loopback IdP' });
    await button.waitFor();
    await accessible(page, 'login-external-idp');
    await button.click();
    // The provider's page (the second controller): a person signs in there.
    await page.waitForURL((url) => url.origin === pair.idp.baseUrl);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill('alice-password-1');
    const back = await clientRedirect(page, () => page.getByRole('button', { name: 'Sign in' }).click());
    assert.equal(back.searchParams.get('state'), 'ext-1');
    assert.ok((back.searchParams.get('code') ?? '').length > 10, back.href);
    await page.context().close();
  });

  it('refuses a callback this browser did not start, with one sentence and no sign-in form', async () => {
    const page = await newPage(browser, { baseURL: pair.ctl.baseUrl });
    const res = await page.goto(`/oidc/ext-idp/callback?${new URLSearchParams({ state: 'A'.repeat(43), code: 'made-up' })}`);
    assert.equal(res?.status(), 400);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /^This sign-in with the identity provider is unknown to this browser/);
    assert.equal(await page.getByLabel('Password').count(), 0);
    await accessible(page, 'login-external-idp-refused');
    await page.context().close();
  });
});
