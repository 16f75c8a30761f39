/**
 * Live status in the console (issue 45, must-have 5): the edge routers list reads the controller's status stream
 * (GET /events/status, server-sent events read with fetch and the Bearer token) and a router going online, with its
 * version, and offline again changes its row in place: no reload, and no request for the list again. Signing out
 * closes the stream.
 *
 * @ui-only: the status stream runs on both stores in test/e2e/status-events.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, newPage, screenshot } from '../helpers/browser.js';
import { assertAccessible, signInToConsole } from '../helpers/console-pages.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { routerHello } from '../helpers/router-hello.js';

describe(`console live status of edge routers (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let browser: Browser;

  before(async () => {
    ctl = await startTestController();
    admin = managementClient(ctl, await ctl.adminToken());
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await ctl?.close();
  });

  it('changes a router row as it goes online and offline, without a reload or another list request', async () => {
    const id = await createdId(admin, '/edge-routers', { name: 'er-live', roleAttributes: ['public'] });
    await createdId(admin, '/edge-routers', { name: 'er-quiet' });
    const page = await newPage(browser, { baseURL: ctl.baseUrl });
    const listRequests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/edge/management/v1/edge-routers') listRequests.push(request.url());
    });
    await page.goto('/console/edge-routers');
    await signInToConsole(page);
    const row = page.locator('tbody tr', { hasText: 'er-live' });
    await row.getByText('offline').waitFor();
    await page.getByText('Live: status changes appear as they happen.').waitFor();
    // Set in this document only: a reload would lose it.
    await page.evaluate(() => ((globalThis as { sameDocument?: boolean }).sameDocument = true));
    const loads = listRequests.length;

    await ctl.running.routerPresence.connected(id, routerHello('er-live.example', ['tls:er-live.example:3022'], { version: 'v9.8.7', versionInfo: { version: 'v9.8.7', revision: 'r', buildDate: '', os: 'linux', arch: 'amd64' } }));
    await row.getByText('online', { exact: true }).waitFor();
    await row.getByText('v9.8.7').waitFor();
    assert.match((await page.locator('tbody tr', { hasText: 'er-quiet' }).textContent()) ?? '', /offline/, 'the other row stays as it was');
    await assertAccessible(page);
    await screenshot(page, 'console-edge-routers-live');

    await ctl.running.routerPresence.disconnected(id);
    await row.getByText('offline').waitFor();
    assert.equal(await page.evaluate(() => (globalThis as { sameDocument?: boolean }).sameDocument), true, 'the page was not reloaded');
    assert.equal(listRequests.length, loads, 'the list was not asked for again');
    assert.equal((await admin.get(`/edge-routers/${id}`)).json().data.isOnline, false);
    await page.context().close();
  });

  it('shows the live status on the router page too, and closes the stream on sign-out', async () => {
    const id = await createdId(admin, '/edge-routers', { name: 'er-detail' });
    const page = await newPage(browser, { baseURL: ctl.baseUrl });
    await page.goto(`/console/edge-routers/${id}`);
    await signInToConsole(page);
    await page.getByRole('heading', { level: 1, name: 'er-detail' }).waitFor();
    await page.getByText('Live: status changes appear as they happen.').waitFor();
    await ctl.running.routerPresence.connected(id, routerHello('er-detail.example', ['tls:er-detail.example:3022'], { version: 'v1.0.1', versionInfo: { version: 'v1.0.1', revision: 'r', buildDate: '', os: 'linux', arch: 'amd64' } }));
    await page.locator('dl.facts').getByText('online', { exact: true }).waitFor();
    await page.locator('dl.facts').getByText('v1.0.1').waitFor();

    const closed = page.waitForEvent('requestfailed', (request) => new URL(request.url()).pathname === '/edge/management/v1/events/status');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await closed;
    await page.getByText('You have signed out.').waitFor();
    await ctl.running.routerPresence.disconnected(id);
    await page.context().close();
  });
});
