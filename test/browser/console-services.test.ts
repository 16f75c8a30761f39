/**
 * Services and configs in Chromium (issue 45): a config's data drawn from its config type's JSON Schema, the API's
 * refusal shown at the field it names with nothing saved, then saved once right; a service's page lists its configs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage } from '../helpers/browser.js';
import { accessible, adminApi, signInToConsole, type AdminApi } from '../helpers/console-session.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';

describe(`services and configs in Chromium (${testDialect})`, () => {
  let ctl: TestController;
  let browser: Browser;
  let page: Page;
  let admin: AdminApi;

  before(async () => {
    ctl = await startTestController();
    admin = await adminApi(ctl);
    await admin.create('/config-types', {
      name: 'web-endpoint',
      schema: {
        type: 'object',
        required: ['hostname', 'port'],
        additionalProperties: false,
        properties: {
          hostname: { type: 'string', minLength: 1, description: 'where the service listens' },
          port: { type: 'integer', minimum: 1, maximum: 65535 },
          protocol: { type: 'string', enum: ['tcp', 'udp'] },
          paths: { type: 'array', items: { type: 'string' } },
        },
      },
    });
    browser = await launchBrowser();
    page = await newPage(browser, { baseURL: ctl.baseUrl });
    await page.goto('/console/configs/new');
    await signInToConsole(page);
    await page.getByRole('heading', { name: 'New config', level: 1 }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await ctl?.close();
  });

  it("draws the data from the type's schema, shows the API's refusal at its field, and saves nothing until it is right", async () => {
    await page.getByLabel('Name', { exact: true }).fill('wiki-endpoint');
    await page.getByLabel('Type', { exact: true }).selectOption({ label: 'web-endpoint' });
    await page.getByLabel('hostname (required)').fill('wiki.internal');
    await page.getByLabel('port (required)').fill('70000');
    await page.getByLabel('protocol').selectOption('tcp');
    await page.getByLabel('paths').fill('/, /docs');
    await page.getByRole('button', { name: 'Save' }).click();
    const problem = page.locator('#problem-data\\.port');
    await problem.waitFor();
    assert.match((await problem.textContent()) ?? '', /65535|maximum|<=/);
    assert.equal(await page.getByLabel('port (required)').getAttribute('aria-invalid'), 'true');
    assert.deepEqual(await admin.named('/configs', 'wiki-endpoint'), [], 'nothing saved');
    await accessible(page, 'console-config-refused');

    await page.getByLabel('port (required)').fill('8443');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Configs', level: 1 }).waitFor();
    const [saved] = await admin.named('/configs', 'wiki-endpoint');
    assert.deepEqual(saved.data, { hostname: 'wiki.internal', port: 8443, protocol: 'tcp', paths: ['/', '/docs'] });
  });

  it("lists services and shows a service's configs on its page", async () => {
    const [config] = await admin.named('/configs', 'wiki-endpoint');
    const serviceId = await admin.create('/services', { name: 'wiki', roleAttributes: ['docs'], configs: [config.id] });
    await page.goto('/console/services');
    await page.getByRole('link', { name: 'wiki', exact: true }).click();
    await page.getByRole('heading', { name: 'wiki', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'wiki-endpoint' }).waitFor();
    assert.match(page.url(), new RegExp(`/console/services/${serviceId}$`));
    await accessible(page, 'console-service');
  });
});
