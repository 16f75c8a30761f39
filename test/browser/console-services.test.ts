/**
 * Services and configs in Chromium (issue 45): a config's data drawn from its config type's JSON Schema, the API's
 * refusal shown at the field it names with nothing saved, then saved once right; a service's page lists its configs;
 * a service created and edited with its configs picked by name, the API's refusal shown at the configs field.
 *
 * @ui-only: the service and config APIs run on both stores in test/integration/authz-configs.test.ts.
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

  it('creates a service with a config picked by name, drafted across a reload, and reads it back from the API', async () => {
    const [config] = await admin.named('/configs', 'wiki-endpoint');
    await page.goto('/console/services');
    await page.getByRole('link', { name: 'New service' }).click();
    await page.getByRole('heading', { name: 'New service', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('intranet');
    await page.getByLabel('Role attributes').fill('docs, eu');
    await page.getByLabel('End-to-end encryption required').uncheck();
    await page.getByLabel('Terminator strategy').selectOption('weighted');
    await page.getByLabel('Find a config by name').fill('wiki');
    await page.getByRole('button', { name: 'Add config wiki-endpoint' }).click();
    await page.getByRole('button', { name: 'Remove config wiki-endpoint' }).waitFor();
    await page.reload();
    await page.getByRole('button', { name: 'Remove config wiki-endpoint' }).waitFor();
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'intranet');
    assert.deepEqual(await admin.named('/services', 'intranet'), [], 'nothing saved before Create');
    await accessible(page, 'console-service-create');

    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'intranet', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'wiki-endpoint' }).waitFor();
    const [saved] = await admin.named('/services', 'intranet');
    assert.deepEqual(
      { roleAttributes: saved.roleAttributes, encryptionRequired: saved.encryptionRequired, terminatorStrategy: saved.terminatorStrategy, configs: saved.configs },
      { roleAttributes: ['docs', 'eu'], encryptionRequired: false, terminatorStrategy: 'weighted', configs: [config.id] },
    );
  });

  it("refuses two configs of one type at the configs field and changes nothing, then saves an edit the API accepts", async () => {
    const typeId = (await admin.named('/config-types', 'web-endpoint'))[0].id as string;
    await admin.create('/configs', { name: 'wiki-endpoint-2', configTypeId: typeId, data: { hostname: 'wiki2.internal', port: 443 } });
    const [service] = await admin.named('/services', 'intranet');
    await page.goto(`/console/services/${service.id}`);
    await page.getByRole('heading', { name: 'intranet', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { name: 'Edit intranet', level: 1 }).waitFor();
    await page.getByLabel('Find a config by name').fill('wiki-endpoint-');
    await page.getByRole('button', { name: 'Add config wiki-endpoint-2' }).click();
    await page.getByLabel('Terminator strategy').selectOption('random');
    await page.getByRole('button', { name: 'Save' }).click();
    const problem = page.locator('#problem-configs');
    await problem.waitFor();
    assert.match((await problem.textContent()) ?? '', /two configs of one config type/);
    const unchanged = await admin.read(`/services/${service.id}`);
    assert.equal(unchanged.terminatorStrategy, 'weighted', 'nothing changed');
    assert.equal(unchanged.configs.length, 1);
    await accessible(page, 'console-service-edit-refused');

    await page.getByRole('button', { name: 'Remove config wiki-endpoint', exact: true }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'intranet', level: 1, exact: true }).waitFor();
    const edited = await admin.read(`/services/${service.id}`);
    assert.equal(edited.terminatorStrategy, 'random');
    assert.equal(edited.configs.length, 1);
    assert.equal(edited.configs[0], (await admin.named('/configs', 'wiki-endpoint-2'))[0].id);
  });
});
