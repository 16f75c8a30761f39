/**
 * The audit trail and the expiry board in the console (issue 45, must-have 5): an update made through the API shows
 * as a table of field, before and after; the trail is filtered on the server by target and actor (the requests say
 * so); the expiry board lists an identity's enrollment that ends within the window, linked to the identity.
 *
 * @ui-only: the audit trail and expiry APIs run on both stores in test/e2e/management-audit-log.test.ts and test/integration/expiries.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage, screenshot } from '../helpers/browser.js';
import { assertAccessible, signInToConsole } from '../helpers/console-pages.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';

describe(`console audit trail and expiry board (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let browser: Browser;
  let page: Page;
  const auditRequests: URLSearchParams[] = [];

  before(async () => {
    ctl = await startTestController();
    admin = managementClient(ctl, await ctl.adminToken());
    browser = await launchBrowser();
    page = await newPage(browser, { baseURL: ctl.baseUrl });
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/edge/management/v1/audit-log') auditRequests.push(url.searchParams);
    });
    await page.goto('/console/audit');
    await signInToConsole(page);
    await page.getByRole('heading', { level: 1, name: 'Audit trail' }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await ctl?.close();
  });

  it("shows an update's before and after, and filters by target on the server", async () => {
    const id = await createdId(admin, '/identities', { name: 'audited-laptop', type: 'Device', isAdmin: false, roleAttributes: ['sales'] });
    assert.equal((await admin.patch(`/identities/${id}`, { roleAttributes: ['support'] })).status, 200);
    await createdId(admin, '/services', { name: 'unrelated-service' });

    await page.getByLabel('Target id').fill(id);
    await page.getByRole('button', { name: 'Apply' }).click();
    // A PATCH is recorded as the action 'patch' (a PUT as 'update').
    const update = page.locator('tbody > tr', { hasText: 'patch' });
    await update.waitFor();
    const last = auditRequests.at(-1)!;
    assert.equal(last.get('entityId'), id, 'the filter is the API query parameter');
    assert.match(last.get('limit') ?? '', /^\d+$/);
    // Only the identity's entries: its create and its update, not the service's.
    await page.locator('tbody > tr', { hasText: 'create' }).waitFor();
    assert.equal(await page.getByText('unrelated-service').count(), 0);
    const change = update.locator('table.changes tbody tr', { hasText: 'roleAttributes' });
    const cells = await change.locator('th, td').allTextContents();
    assert.equal(cells[0], 'roleAttributes');
    assert.match(cells[1] ?? '', /sales/);
    assert.match(cells[2] ?? '', /support/);
    await assertAccessible(page);
    await screenshot(page, 'console-audit');

    // The same through the API: the entry the page showed.
    const entries = (await admin.get(`/audit-log?entityId=${id}&limit=10`)).json().data as { action: string; changes: { field: string; before: unknown; after: unknown }[] }[];
    const updated = entries.find((entry) => entry.action === 'patch')!;
    assert.deepEqual(updated.changes.find((c) => c.field === 'roleAttributes'), { field: 'roleAttributes', before: ['sales'], after: ['support'] });
  });

  it('filters by actor on the server, and clears the filters', async () => {
    const adminId = (await admin.get('/current-identity')).json().data.id as string;
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText('unrelated-service').waitFor();
    await page.getByLabel('Actor id').fill('nobody-did-this');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('Nothing matches.').waitFor();
    assert.equal(auditRequests.at(-1)!.get('actorId'), 'nobody-did-this');
    await page.getByLabel('Actor id').fill(adminId);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('unrelated-service').waitFor();
    assert.equal(auditRequests.at(-1)!.get('actorId'), adminId);
  });

  it('lists an enrollment that expires soon on the expiry board, linked to its identity', async () => {
    const id = await createdId(admin, '/identities', { name: 'expiring-phone', type: 'Device', isAdmin: false, enrollment: { ott: true } });
    const expiresAt = (await admin.get(`/identities/${id}`)).json().data.enrollment.ott.expiresAt as string;
    const requests: URLSearchParams[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/edge/management/v1/expiries') requests.push(url.searchParams);
    });
    await page.goto('/console/expiries?days=7');
    await page.getByRole('heading', { level: 1, name: 'Expiring soon' }).waitFor();
    const row = page.locator('tbody tr', { hasText: 'expiring-phone' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /Identity enrollment/);
    assert.equal(await row.getByRole('link', { name: 'expiring-phone' }).getAttribute('href'), `/console/identities/${id}`);
    assert.equal(await row.locator('time').getAttribute('datetime'), expiresAt);
    assert.equal(requests.at(-1)!.get('within'), 'P7D');
    await assertAccessible(page);
    await screenshot(page, 'console-expiries');

    await page.getByLabel('Within').selectOption('90');
    await page.waitForURL(/days=90/);
    await row.waitFor();
    assert.equal(requests.at(-1)!.get('within'), 'P90D');
  });
});
