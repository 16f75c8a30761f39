/**
 * Live identity status in the console (issue 45, must-have 5): the identities list and an identity's page read the
 * controller's status stream, and an identity logging in through the API turns online on the page, then offline when
 * it logs out: no reload, and no request for the list again. The status is a word beside its dot, not a colour only.
 *
 * @ui-only: the identity events of the status stream run on both stores in test/e2e/status-events.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, newPage, screenshot } from '../helpers/browser.js';
import { assertAccessible, signInToConsole } from '../helpers/console-pages.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';

describe(`console live status of identities (${testDialect})`, () => {
  let ctl: TestController;
  let browser: Browser;

  before(async () => {
    ctl = await startTestController();
    // Makes the default administrator the console signs in as.
    await ctl.adminToken();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await ctl?.close();
  });

  /** Logs `name` in through the legacy API; the way to log it out again. */
  async function logIn(name: string): Promise<() => Promise<void>> {
    const res = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: name, password: 'person-password' } });
    assert.equal(res.status, 200, res.text);
    const token = res.json().data.token as string;
    return async () => {
      const out = await ctl.fetch('/edge/client/v1/current-api-session', { method: 'DELETE', headers: { 'svc-session': token } });
      assert.equal(out.status, 200, out.text);
    };
  }

  it('turns an identity row online at its login and offline at its logout, without a reload or another list request', async () => {
    await createIdentity(ctl.running.database, { name: 'person-live', username: 'person-live', password: 'person-password' });
    await createIdentity(ctl.running.database, { name: 'person-quiet', username: 'person-quiet', password: 'person-password' });
    const page = await newPage(browser, { baseURL: ctl.baseUrl });
    const listRequests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/edge/management/v1/identities') listRequests.push(request.url());
    });
    await page.goto('/console/identities');
    await signInToConsole(page);
    const row = page.locator('tbody tr', { hasText: 'person-live' });
    await row.getByText('offline', { exact: true }).waitFor();
    await page.getByText('Live: status changes appear as they happen.').waitFor();
    // Set in this document only: a reload would lose it.
    await page.evaluate(() => ((globalThis as { sameDocument?: boolean }).sameDocument = true));
    const loads = listRequests.length;

    const logOut = await logIn('person-live');
    await row.getByText('online', { exact: true }).waitFor();
    assert.match((await page.locator('tbody tr', { hasText: 'person-quiet' }).textContent()) ?? '', /offline/, 'the other row stays as it was');
    await assertAccessible(page);
    await screenshot(page, 'console-identities-live');

    await logOut();
    await row.getByText('offline', { exact: true }).waitFor();
    assert.equal(await page.evaluate(() => (globalThis as { sameDocument?: boolean }).sameDocument), true, 'the page was not reloaded');
    assert.equal(listRequests.length, loads, 'the list was not asked for again');
    await page.context().close();
  });

  it("shows the live status on the identity's page too", async () => {
    const { id } = await createIdentity(ctl.running.database, { name: 'person-detail', username: 'person-detail', password: 'person-password' });
    const page = await newPage(browser, { baseURL: ctl.baseUrl });
    await page.goto(`/console/identities/${id}`);
    await signInToConsole(page);
    await page.getByRole('heading', { level: 1, name: 'person-detail' }).waitFor();
    await page.getByText('Live: status changes appear as they happen.').waitFor();
    const facts = page.locator('dl.facts').first();
    await facts.getByText('offline', { exact: true }).waitFor();
    const logOut = await logIn('person-detail');
    await facts.getByText('online', { exact: true }).waitFor();
    await assertAccessible(page);
    await screenshot(page, 'console-identity-live');
    await logOut();
    await facts.getByText('offline', { exact: true }).waitFor();
    await page.context().close();
  });
});
