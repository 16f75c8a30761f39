/**
 * The change preview on the service, edge router and posture check screens in Chromium (issue 45): new role
 * attributes of a service or an edge router, and a posture check being created or deleted, show who gains and who loses what
 * (as the API's `POST /change-previews` answers) before the save, the save button says what it will do, and nothing
 * is saved until it is pressed. axe-core on each screen with its preview.
 *
 * @ui-only: the change-preview API runs on both stores in test/integration/change-previews-entities.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage } from '../helpers/browser.js';
import { accessible, adminApi, clearConsoleDrafts, signInToConsole, type AdminApi } from '../helpers/console-session.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';

describe(`change previews of services, edge routers and posture checks in Chromium (${testDialect})`, () => {
  let ctl: TestController;
  let browser: Browser;
  let page: Page;
  let admin: AdminApi;
  const ids: Record<string, string> = {};

  /** The preview region of one side, by its heading: "Gain access: 1". */
  const side = (name: string) => page.getByRole('region', { name, exact: true });

  before(async () => {
    ctl = await startTestController();
    admin = await adminApi(ctl);
    await admin.create('/identities', { name: 'dana', type: 'User', isAdmin: false, roleAttributes: ['eng'] });
    ids.wiki = await admin.create('/services', { name: 'wiki', roleAttributes: ['wiki'] });
    ids.router = await admin.create('/edge-routers', { name: 'edge-a', roleAttributes: ['edge'] });
    await admin.create('/service-policies', { name: 'eng-docs', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#eng'], serviceRoles: ['#docs'] });
    await admin.create('/edge-router-policies', { name: 'eng-edge', semantic: 'AnyOf', identityRoles: ['#eng'], edgeRouterRoles: ['#edge'] });
    await admin.create('/service-edge-router-policies', { name: 'wiki-edge', semantic: 'AnyOf', serviceRoles: ['#wiki'], edgeRouterRoles: ['#edge'] });
    browser = await launchBrowser();
    page = await newPage(browser, { baseURL: ctl.baseUrl });
    await page.goto('/console/services');
    await signInToConsole(page);
    await page.getByRole('heading', { name: 'Services', level: 1 }).waitFor();
  });
  beforeEach(() => clearConsoleDrafts(page));
  after(async () => {
    await browser?.close();
    await ctl?.close();
  });

  it("shows who gains a service before its new role attributes are saved, and saves them only on the button that says so", async () => {
    await page.goto(`/console/services/${ids.wiki}/edit`);
    await page.getByRole('heading', { name: 'Edit wiki', level: 1 }).waitFor();
    await page.getByRole('textbox', { name: 'Role attributes', exact: true }).fill('wiki, docs');
    await side('Gain access: 1').getByRole('cell', { name: 'dana' }).waitFor();
    await accessible(page, 'console-service-change-preview');
    assert.deepEqual((await admin.read(`/services/${ids.wiki}`)).roleAttributes, ['wiki'], 'not saved while previewed');
    await page.getByRole('button', { name: 'Save: 1 gain, 0 lose access', exact: true }).click();
    await page.getByRole('heading', { name: 'wiki', level: 1, exact: true }).waitFor();
    assert.deepEqual((await admin.read(`/services/${ids.wiki}`)).roleAttributes, ['wiki', 'docs']);
  });

  it("shows which identities lose an edge router and which services lose their last one before its role attributes are saved", async () => {
    await page.goto(`/console/edge-routers/${ids.router}`);
    await page.getByRole('heading', { name: 'edge-a', level: 1 }).waitFor();
    const field = page.getByRole('textbox', { name: 'Role attributes', exact: true });
    await field.fill('');
    const losses = side('Lose access: 2');
    await losses.getByRole('cell', { name: 'dana' }).waitFor();
    await losses.getByRole('cell', { name: 'wiki' }).waitFor();
    await accessible(page, 'console-router-change-preview');
    assert.deepEqual((await admin.read(`/edge-routers/${ids.router}`)).roleAttributes, ['edge'], 'not saved while previewed');
    await page.getByRole('button', { name: 'Save: 0 gain, 2 lose access', exact: true }).click();
    await page.getByRole('button', { name: 'Save', exact: true }).waitFor();
    assert.deepEqual((await admin.read(`/edge-routers/${ids.router}`)).roleAttributes, []);
  });

  it("shows the pairs a new posture check would block on what the identities' clients reported, and creates it only on confirm; its delete is previewed the same way", async () => {
    const erin = await createIdentity(ctl.running.database, { name: 'erin', username: 'erin', password: 'erin-password' });
    ids.vault = await admin.create('/services', { name: 'vault', roleAttributes: ['vault'] });
    await admin.create('/service-policies', { name: 'erin-vault', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${erin.id}`], serviceRoles: ['#vault'], postureCheckRoles: ['#gate'] });
    const login = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'erin', password: 'erin-password' } });
    assert.equal(login.status, 200, login.text);
    // Erin's client reports a Linux host, as an SDK does when asked about an OS check.
    const probe = await admin.create('/posture-checks', { name: 'os-probe', typeId: 'OS', operatingSystems: [{ type: 'Linux' }] });
    const reported = await ctl.fetch('/edge/client/v1/posture-response', { method: 'POST', headers: { 'svc-session': login.json().data.token }, body: { id: probe, typeId: 'OS', type: 'Linux', version: '6.1.0' } });
    assert.equal(reported.status, 201, reported.text);

    await page.goto('/console/posture-checks/new');
    await page.getByLabel('Name', { exact: true }).fill('windows-gate');
    await page.getByRole('textbox', { name: 'Role attributes', exact: true }).fill('gate');
    await page.getByLabel('Operating system').selectOption('Windows');
    const losses = side('Lose access: 1');
    await losses.getByRole('cell', { name: 'erin' }).waitFor();
    await losses.getByRole('cell', { name: 'vault' }).waitFor();
    await accessible(page, 'console-posture-check-change-preview');
    assert.deepEqual(await admin.named('/posture-checks', 'windows-gate'), [], 'not created while previewed');
    await page.getByLabel('Operating system').selectOption('Linux');
    await page.getByText('Nobody gains or loses access.').waitFor();
    await page.getByLabel('Operating system').selectOption('Windows');
    await page.getByRole('button', { name: 'Create: 0 gain, 1 lose access', exact: true }).click();
    await page.getByRole('heading', { name: 'Posture checks', level: 1, exact: true }).waitFor();
    const [gate] = await admin.named('/posture-checks', 'windows-gate');
    assert.ok(gate, 'created on confirm');

    // Its delete is previewed too: erin gains vault back; nothing is deleted until the button that says so.
    await page.goto(`/console/posture-checks/${gate.id}`);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const gains = side('Gain access: 1');
    await gains.getByRole('cell', { name: 'erin' }).waitFor();
    await gains.getByRole('cell', { name: 'vault' }).waitFor();
    await accessible(page, 'console-posture-check-delete-preview');
    await page.getByRole('button', { name: 'Cancel', exact: true }).first().click();
    assert.equal((await admin.named('/posture-checks', 'windows-gate')).length, 1, 'cancel deletes nothing');
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('button', { name: 'Delete: 1 gain, 0 lose access', exact: true }).click();
    await page.getByRole('heading', { name: 'Posture checks', level: 1, exact: true }).waitFor();
    assert.deepEqual(await admin.named('/posture-checks', 'windows-gate'), [], 'deleted on confirm');
  });
});
