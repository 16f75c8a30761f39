/**
 * The web console in Chromium against a real controller on loopback (issue 45): served at /console/ under a strict
 * Content-Security-Policy, signed in through the controller's own OIDC login (authorization code with PKCE), a list
 * searched, sorted and paged by the API, an ended session that comes back to the same page after signing in again,
 * and sign-out that revokes. axe-core finds no serious or critical violation on any screen.
 *
 * @ui-only: the OIDC sign-in the console uses runs on both stores in test/e2e/oidc-flow.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { CONTENT_SECURITY_POLICY } from '../../src/http/console/content-security-policy.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { describeViolations, launchBrowser, newPage, screenshot, seriousAccessibilityViolations } from '../helpers/browser.js';

const ADMIN = { username: 'admin', password: 'admin-password' };

async function signIn(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: /log in|sign in/i }).click();
}

describe(`console shell in Chromium (${testDialect})`, () => {
  let ctl: TestController;
  let browser: Browser;
  let token: string;
  const ids = new Map<string, string>();

  before(async () => {
    ctl = await startTestController();
    token = await ctl.adminToken();
    // 30 identities named so that sorting and paging have something to show: console-00 … console-29.
    for (let i = 0; i < 30; i++) {
      const name = `console-${String(i).padStart(2, '0')}`;
      const answer = await ctl.fetch('/edge/management/v1/identities', {
        method: 'POST',
        headers: { 'svc-session': token },
        body: { name, type: 'Device', isAdmin: false, roleAttributes: i % 2 === 0 ? ['even'] : ['odd'] },
      });
      assert.equal(answer.status, 201, answer.text);
      ids.set(name, answer.json().data.id);
    }
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await ctl?.close();
  });

  it('serves the console with a strict Content-Security-Policy and no inline script or style', async () => {
    const page = await ctl.fetch('/console/');
    assert.equal(page.status, 200);
    assert.equal(page.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.doesNotMatch(page.text, /<script(?![^>]*\bsrc=)[^>]*>/i, 'every script has a src');
    assert.doesNotMatch(page.text, /<style|\sstyle=/i, 'no inline style');
    const script = /src="(\/console\/assets\/app-[A-Z0-9]+\.js)"/.exec(page.text)?.[1];
    assert.ok(script, page.text);
    const asset = await ctl.fetch(script);
    assert.equal(asset.status, 200);
    assert.match(String(asset.headers['cache-control']), /immutable/);
    // Any console path answers the same page, so the console's own routes survive a reload.
    const deep = await ctl.fetch('/console/identities/some-id');
    assert.equal(deep.text, page.text);
    // Compressed once by the build, sent to browsers that accept it, byte for byte the same once decoded; gzip where
    // brotli is not accepted; the compressed forms are not assets of their own.
    const compressed = await ctl.fetch(script, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(compressed.headers['content-encoding'], 'br');
    assert.ok(compressed.body.length < asset.body.length / 2, `${compressed.body.length} of ${asset.body.length} bytes`);
    assert.equal(brotliDecompressSync(compressed.body).toString('utf8'), asset.text);
    const gzipped = await ctl.fetch(script, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gzipped.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gzipped.body).toString('utf8'), asset.text);
    assert.equal((await ctl.fetch(`${script}.br`)).status, 404);
    const missing = await ctl.fetch('/console/assets/app-NOPE.js');
    assert.equal(missing.status, 404);
    assert.match(missing.text, /No console asset is named 'app-NOPE\.js'/);
  });

  it('signs in through the OIDC login page and lists identities sorted, searched and paged by the API', async () => {
    const page = await newPage(browser, { baseURL: ctl.baseUrl });
    const listRequests: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/edge/management/v1/identities') listRequests.push(url.search);
    });
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) blocked.push(message.text());
    });
    await page.goto('/console/identities');
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await screenshot(page, 'console-sign-in');
    await signIn(page);
    await page.waitForURL('**/console/identities');
    await page.getByRole('link', { name: 'console-00' }).waitFor();
    // Who is signed in, by name (the access token carries only the id).
    await page.getByText('Signed in as admin').waitFor();
    const violations = await seriousAccessibilityViolations(page);
    assert.deepEqual(violations, [], describeViolations(violations));
    await screenshot(page, 'console-identities');
    // The first page: 25 rows (the page size) of 31 (30 and the admin), asked of the API with limit and sort.
    assert.equal(await page.locator('tbody tr').count(), 25);
    await page.getByText('1–25 of 31').waitFor();
    assert.ok(listRequests.every((search) => /limit=25/.test(search)), listRequests.join('\n'));

    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('26–31 of 31').waitFor();
    assert.match(page.url(), /offset=25/);

    await page.getByRole('button', { name: 'Sort by Name' }).click();
    await page.getByRole('link', { name: 'console-29' }).waitFor();
    assert.match(listRequests.at(-1) ?? '', /sort=name\+desc/);

    await page.getByLabel('Search').fill('console-1');
    await page.getByText('1–10 of 10').waitFor();
    assert.deepEqual(
      listRequests.slice(-2).map((search) => new URLSearchParams(search).get('filter')),
      ['(name >= "console-1" and name < "console-2")', 'id = "console-1"'],
    );
    // `*` looks anywhere in the name: 'e-2' is inside console-20 … console-29.
    const anywhere = page.waitForResponse((response) => new URL(response.url()).searchParams.get('filter') === 'name contains "e-2"');
    await page.getByLabel('Search').fill('*e-2');
    assert.equal((await anywhere).status(), 200);
    await page.getByRole('link', { name: 'console-20' }).waitFor();
    await page.getByText('1–10 of 10').waitFor();

    // An id finds its entity by a request of its own (an exact match), shown first.
    await page.getByLabel('Search').fill(ids.get('console-05')!);
    await page.getByText('1–1 of 1').waitFor();
    await page.getByRole('link', { name: 'console-05' }).waitFor();

    await page.getByLabel('Search').fill('#even');
    await page.getByText('1–15 of 15').waitFor();
    assert.equal(new URLSearchParams(listRequests.at(-1)).get('roleFilter'), '#even');
    assert.deepEqual(blocked, [], 'the page loaded nothing the CSP refused');
    await page.context().close();
  });

  it('sends an ended session to sign in again and back to the same page', async () => {
    const page = await newPage(browser, { baseURL: ctl.baseUrl });
    await page.goto('/console/identities?q=console-2');
    await signIn(page);
    await page.getByText('1–10 of 10').waitFor();
    // The session ends at the controller (its tokens are no longer accepted): the next call is refused.
    await page.evaluate(() => {
      const tokens = JSON.parse((globalThis as any).sessionStorage.getItem('svc.console.tokens') ?? '{}');
      (globalThis as any).sessionStorage.setItem('svc.console.tokens', JSON.stringify({ ...tokens, accessToken: 'ended', refreshToken: 'ended' }));
    });
    await page.getByLabel('Search').fill('console-0');
    await page.getByText('Your session ended').waitFor();
    await signIn(page);
    await page.waitForURL(/\/console\/identities\?q=console-0/);
    await page.getByText('1–10 of 10').waitFor();
    await page.context().close();
  });

  it('signs out: the refresh token is revoked and the console asks to sign in', async () => {
    const page = await newPage(browser, { baseURL: ctl.baseUrl });
    await page.goto('/console/');
    await signIn(page);
    await page.getByRole('link', { name: 'console-00' }).waitFor();
    const refreshToken = await page.evaluate(() => JSON.parse((globalThis as any).sessionStorage.getItem('svc.console.tokens') ?? '{}').refreshToken as string);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You have signed out.').waitFor();
    const refused = await ctl.fetch('/oidc/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'svc' }).toString(),
    });
    assert.equal(refused.status, 400, refused.text);
    await page.context().close();
  });
});
