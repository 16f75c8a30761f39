/**
 * The "why can't it reach" page in Chromium against a real controller (issue 45): an identity and a service picked by
 * name (searched by the API), one row per layer as the API evaluates it, the blocking layer named with a link that
 * opens the object to fix, and an unknown id answered with the API's message. axe-core on each state of the page.
 *
 * @ui-only: the reach API runs on both stores in test/integration/identity-reach.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { signInToConsole } from '../helpers/console-pages.js';
import { accessible, adminApi, type AdminApi } from '../helpers/console-session.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { launchBrowser, newPage } from '../helpers/browser.js';

describe(`console "why can't it reach" in Chromium (${testDialect})`, () => {
  let ctl: TestController;
  let browser: Browser;
  let admin: AdminApi;
  let page: Page;
  const ids: Record<string, string> = {};

  before(async () => {
    ctl = await startTestController();
    admin = await adminApi(ctl);
    ids.bob = await admin.create('/identities', { name: 'bob', type: 'Device', isAdmin: false, roleAttributes: ['staff'] });
    ids.files = await admin.create('/services', { name: 'files', encryptionRequired: true, roleAttributes: ['files'] });
    ids.carol = await admin.create('/identities', { name: 'carol', type: 'Device', isAdmin: false, roleAttributes: [] });
    ids.dialFiles = await admin.create('/service-policies', { name: 'carol-dials-files', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${ids.carol}`], serviceRoles: ['#files'] });
    browser = await launchBrowser();
    page = await newPage(browser, { baseURL: ctl.baseUrl });
    await page.goto('/console/reach');
    await signInToConsole(page);
    await page.getByRole('heading', { name: "Why can't it reach?", level: 1 }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await ctl?.close();
  });

  it('picks the identity and the service by name and shows every layer as the API evaluates it, the blocking ones named', async () => {
    await page.goto('/console/reach');
    await page.getByText('Pick an identity and a service to see what stands between them.').waitFor();
    await accessible(page, 'console-reach-pick');
    await page.getByLabel('Find identities by name').fill('bo');
    await page.getByRole('button', { name: 'Identity: bob' }).click();
    await page.getByText('Identity: bob').waitFor();
    await page.getByLabel('Find services by name').fill('fil');
    await page.getByRole('button', { name: 'Service: files' }).click();
    await page.waitForURL(new RegExp(`identity=${ids.bob}.*service=${ids.files}|service=${ids.files}.*identity=${ids.bob}`));
    await page.getByRole('heading', { name: 'bob cannot dial files', exact: false }).waitFor();

    const answer = await admin.read(`/identities/${ids.bob}/reach/${ids.files}?permission=dial`);
    assert.equal(answer.reachable, false);
    const rows = page.locator('tbody tr[data-layer]');
    assert.equal(await rows.count(), answer.layers.length, 'one row per layer');
    for (const [index, layer] of (answer.layers as { layer: string; ok: boolean; message: string }[]).entries()) {
      const row = rows.nth(index);
      assert.equal(await row.getAttribute('data-layer'), layer.layer);
      assert.equal(await row.locator('td').nth(0).innerText(), layer.ok ? 'ok' : 'blocking', layer.layer);
      assert.equal(await row.locator('td').nth(1).innerText(), layer.message);
    }
    const servicePolicy = page.locator('tr[data-layer="service-policy"]');
    assert.equal(await servicePolicy.locator('th').innerText(), 'Service policy');
    assert.equal(await servicePolicy.locator('td').nth(0).innerText(), 'blocking');
    await accessible(page, 'console-reach');
  });

  it('links a blocking layer to the object to fix, and the link opens it', async () => {
    // carol may dial files by a policy, but no edge router policy lets her use a router: that layer blocks.
    await page.goto(`/console/reach?identity=${ids.carol}&service=${ids.files}`);
    await page.getByRole('heading', { name: 'carol cannot dial files', exact: false }).waitFor();
    const answer = await admin.read(`/identities/${ids.carol}/reach/${ids.files}?permission=dial`);
    const layer = (name: string) => answer.layers.find((l: { layer: string }) => l.layer === name);
    assert.equal(layer('service-policy').ok, true);
    assert.equal(layer('edge-router-policy').ok, false);
    // The blocking layer links where the API says the fix is (a policy's page here, another object's list searched by
    // its id); following the link opens that screen.
    const fixes = (answer.layers.find((l: { layer: string }) => l.layer === 'edge-router-policy').fix as { entity: string; id?: string }[]).filter((fix) =>
      ['edge-router-policies', 'identities'].includes(fix.entity),
    );
    assert.ok(fixes.length > 0, JSON.stringify(answer.layers));
    const fix = fixes[0]!;
    const href = fix.entity === 'edge-router-policies' && fix.id ? `/console/edge-router-policies/${fix.id}` : fix.id ? `/console/${fix.entity}?q=${fix.id}` : `/console/${fix.entity}`;
    const link = page.locator('tr[data-layer="edge-router-policy"]').locator(`a[href="${href}"]`);
    await link.click();
    await page.waitForURL((url) => `${url.pathname}${url.search}` === href);
    assert.equal(await page.getByText('There is no such page in the console.').count(), 0);
    await page.getByRole('heading', { name: fix.entity === 'identities' ? 'Identities' : 'Edge router policies', level: 1 }).waitFor();
  });

  it("answers an unknown service id with the API's message and no layers", async () => {
    await page.goto(`/console/reach?identity=${ids.bob}&service=no-such-service`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /no-such-service|service/i);
    assert.equal(await page.locator('tbody tr[data-layer]').count(), 0);
    // Positive control: the same page with the real id shows the layers.
    await page.goto(`/console/reach?identity=${ids.bob}&service=${ids.files}`);
    await page.locator('tbody tr[data-layer]').first().waitFor();
  });
});
