/**
 * The console's policy screens in Chromium against a real controller (issue 45): the three kinds of policy listed by
 * the API, created with role pickers that preview the entities a role list matches, the change preview before every
 * save and delete (and nothing saved until confirmed), the API's refusal shown at its field, and one full "give an
 * identity access to a service" flow that ends on the "why can't it reach" page. axe-core on every screen.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { signInToConsole } from '../helpers/console-pages.js';
import { accessible, adminApi, clearConsoleDrafts, type AdminApi } from '../helpers/console-session.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { launchBrowser, newPage } from '../helpers/browser.js';

/** The layers the reach page shows, as the API names them: layer, ok, message. */
async function layersShown(page: Page) {
  return page.locator('tbody tr[data-layer]').evaluateAll((rows) =>
    rows.map((row) => ({
      layer: row.getAttribute('data-layer'),
      ok: row.classList.contains('layer-ok'),
      message: row.querySelectorAll('td')[1]?.textContent,
    })),
  );
}

describe(`console policies in Chromium (${testDialect})`, () => {
  let ctl: TestController;
  let browser: Browser;
  let admin: AdminApi;
  let page: Page;
  const ids: Record<string, string> = {};

  const pickerOf = (label: string) => page.getByRole('group', { name: label });
  const reachOf = (identity: string, service: string) => admin.read(`/identities/${identity}/reach/${service}?permission=dial`);
  const previewOf = async (body: object) => {
    const answer = await ctl.fetch('/edge/management/v1/change-previews', { method: 'POST', headers: { 'svc-session': await ctl.adminToken() }, body });
    assert.equal(answer.status, 200, answer.text);
    return answer.json().data as { gains: { count: number }; losses: { count: number } };
  };
  /** The confirm button's name for a preview: what the save will do, in the API's counts. */
  const confirmOf = (verb: string, preview: { gains: { count: number }; losses: { count: number } }) =>
    page.getByRole('button', { name: `${verb}: ${preview.gains.count} gain, ${preview.losses.count} lose access`, exact: true });

  before(async () => {
    ctl = await startTestController();
    admin = await adminApi(ctl);
    ids.alice = await admin.create('/identities', { name: 'alice', type: 'Device', isAdmin: false, roleAttributes: ['staff'] });
    ids.web = await admin.create('/services', { name: 'web', encryptionRequired: true, roleAttributes: ['web'] });
    ids.router = await admin.create('/edge-routers', { name: 'router-1', roleAttributes: ['edge'] });
    // Twelve holders of #team: the role picker's preview counts them all and names the first ten.
    for (let i = 0; i < 12; i++) await admin.create('/identities', { name: `team-${String(i).padStart(2, '0')}`, type: 'Device', isAdmin: false, roleAttributes: ['team'] });
    browser = await launchBrowser();
    page = await newPage(browser, { baseURL: ctl.baseUrl });
    await page.goto('/console/service-policies');
    await signInToConsole(page);
    await page.getByRole('heading', { name: 'Service policies', level: 1 }).waitFor();
  });
  // Each test starts with no drafts: a test that stops half-way leaves none for the next one's forms.
  beforeEach(() => clearConsoleDrafts(page));
  after(async () => {
    await browser?.close();
    await ctl?.close();
  });

  it('lists each kind of policy from the API, searched and paged there, with the names its @roles stand for, and opens its detail', async () => {
    await admin.create('/service-policies', { name: 'listed-sp', type: 'Bind', semantic: 'AnyOf', identityRoles: [`@${ids.alice}`], serviceRoles: ['#web'] });
    await admin.create('/edge-router-policies', { name: 'listed-erp', semantic: 'AllOf', identityRoles: ['#staff'], edgeRouterRoles: [`@${ids.router}`] });
    await admin.create('/service-edge-router-policies', { name: 'listed-serp', semantic: 'AllOf', serviceRoles: [`@${ids.web}`], edgeRouterRoles: ['#all'] });
    const lists: string[] = [];
    const listen = (request: { url(): string }) => {
      const url = new URL(request.url());
      if (/policies$/.test(url.pathname)) lists.push(url.search);
    };
    page.on('request', listen);
    for (const [title, name, shown] of [
      ['Service policies', 'listed-sp', '@alice'],
      ['Edge router policies', 'listed-erp', '@router-1'],
      ['Service edge router policies', 'listed-serp', '@web'],
    ] as const) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: title, exact: true }).click();
      await page.getByRole('heading', { name: title, level: 1 }).waitFor();
      await page.getByLabel('Search').fill('listed');
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name }) });
      await row.getByText(shown).waitFor();
      await accessible(page, `console-${title.toLowerCase().replace(/ /g, '-')}`);
      await row.getByRole('link', { name }).click();
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      await page.getByText(shown).first().waitFor();
    }
    page.off('request', listen);
    assert.ok(lists.length >= 3 && lists.every((search) => /limit=(25|1)\b/.test(search)), lists.join('\n'));
    assert.ok(lists.some((search) => new URLSearchParams(search).get('filter') === '(name >= "listed" and name < "listee")'), lists.join('\n'));
  });

  it('keeps a policy being typed as a draft across a reload, and drops it on cancel', async () => {
    await page.goto('/console/service-policies/new');
    await page.getByLabel('Name', { exact: true }).fill('half-typed');
    await pickerOf('Service roles').getByLabel('Attribute for Service roles').fill('web');
    await pickerOf('Service roles').getByRole('button', { name: 'Add attribute' }).click();
    await page.reload();
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'half-typed');
    await pickerOf('Service roles').getByRole('button', { name: 'Remove #web' }).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Service policies', level: 1 }).waitFor();
    await page.goto('/console/service-policies/new');
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), '');
    assert.deepEqual(await admin.named('/service-policies', 'half-typed'), []);
  });

  it("previews a role list's matches from the API: the count and the first ten names, asked with limit=10", async () => {
    const previews: URLSearchParams[] = [];
    const listen = (request: { url(): string }) => {
      const url = new URL(request.url());
      if (url.pathname === '/edge/management/v1/identities' && url.searchParams.has('roleFilter')) previews.push(url.searchParams);
    };
    page.on('request', listen);
    await page.goto('/console/edge-router-policies/new');
    const identities = pickerOf('Identity roles');
    await identities.getByLabel('Attribute for Identity roles').fill('team');
    await identities.getByRole('button', { name: 'Add attribute' }).click();
    await identities.getByText('Matches 12 identities').waitFor();
    await identities.getByText(/first 10: team-00, team-01, .*, team-09\)/).waitFor();
    assert.equal(await identities.getByText('team-10').count(), 0, 'only the first ten are named');
    // AnyOf with a second attribute widens the match; AllOf of #team and #staff matches nobody.
    await identities.getByLabel('Attribute for Identity roles').fill('staff');
    await identities.getByRole('button', { name: 'Add attribute' }).click();
    await identities.getByText('Matches 0 identities').waitFor();
    await page.getByLabel('Semantic').selectOption('AnyOf');
    await identities.getByText('Matches 13 identities').waitFor();
    await identities.getByRole('button', { name: 'Remove #team' }).click();
    await identities.getByText('Matches 1 identities (first 1: alice)').waitFor();
    await pickerOf('Edge router roles').getByRole('button', { name: 'Add #all' }).click();
    await pickerOf('Edge router roles').getByText('Matches 1 edge routers (first 1: router-1)').waitFor();
    page.off('request', listen);
    assert.ok(previews.length >= 4, `${previews.length} previews`);
    for (const search of previews) assert.equal(search.get('limit'), '10', search.toString());
    assert.deepEqual(previews.at(-1)?.getAll('roleFilter'), ['#staff']);
    assert.equal(previews.at(-1)?.get('roleSemantic'), 'AnyOf');
    await accessible(page, 'console-policy-new');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Edge router policies', level: 1 }).waitFor();
  });

  it('shows who gains access before a policy is saved, and saves it only on confirm', async () => {
    await page.goto('/console/service-policies/new');
    await page.getByLabel('Name', { exact: true }).fill('team-dials-web');
    await pickerOf('Identity roles').getByLabel('Attribute for Identity roles').fill('team');
    await pickerOf('Identity roles').getByRole('button', { name: 'Add attribute' }).click();
    await pickerOf('Service roles').getByLabel('Find services by name').fill('we');
    await pickerOf('Service roles').getByRole('button', { name: 'Add @web' }).click();
    await pickerOf('Service roles').getByText('Matches 1 services (first 1: web)').waitFor();
    await page.getByRole('button', { name: 'Review the change' }).click();
    const body = { name: 'team-dials-web', type: 'Dial', semantic: 'AllOf', identityRoles: ['#team'], serviceRoles: [`@${ids.web}`], postureCheckRoles: [] };
    const expected = await previewOf({ entity: 'service-policies', change: body });
    assert.equal(expected.gains.count, 12, 'the twelve holders of #team gain dial on web');
    await page.getByRole('region', { name: 'Gain access: 12', exact: true }).waitFor();
    await page.getByRole('cell', { name: 'team-00' }).waitFor();
    await accessible(page, 'console-policy-change-preview');
    // Shown, not saved: the API has no such policy until the confirm button (which says what it does) is pressed.
    assert.deepEqual(await admin.named('/service-policies', 'team-dials-web'), []);
    await page.getByRole('button', { name: 'Back to editing' }).click();
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'team-dials-web', 'the draft is kept');
    assert.deepEqual(await admin.named('/service-policies', 'team-dials-web'), []);
    await page.getByRole('button', { name: 'Review the change' }).click();
    await confirmOf('Create', expected).click();
    await page.getByRole('heading', { name: 'team-dials-web', level: 1 }).waitFor();
    const [saved] = await admin.named('/service-policies', 'team-dials-web');
    assert.deepEqual([saved.type, saved.semantic, saved.identityRoles, saved.serviceRoles], ['Dial', 'AllOf', ['#team'], [`@${ids.web}`]]);
    await page.getByRole('region', { name: 'Service roles' }).getByText('@web').waitFor();
    await accessible(page, 'console-policy-detail');
  });

  it('shows who loses access before an edit and a delete, and changes nothing until confirmed', async () => {
    const [policy] = await admin.named('/service-policies', 'team-dials-web');
    await page.goto(`/console/service-policies/${policy.id}/edit`);
    await pickerOf('Identity roles').getByRole('button', { name: 'Remove #team' }).click();
    await pickerOf('Identity roles').getByText('No roles: this list matches nothing.').waitFor();
    await page.getByRole('button', { name: 'Review the change' }).click();
    const change = { name: 'team-dials-web', type: 'Dial', semantic: 'AllOf', identityRoles: [], serviceRoles: [`@${ids.web}`], postureCheckRoles: [] };
    const edit = await previewOf({ entity: 'service-policies', id: policy.id, change });
    assert.deepEqual([edit.gains.count, edit.losses.count], [0, 12], 'the twelve holders of #team lose dial on web');
    await page.getByRole('region', { name: 'Lose access: 12', exact: true }).waitFor();
    assert.deepEqual((await admin.read(`/service-policies/${policy.id}`)).identityRoles, ['#team'], 'unchanged while previewed');
    await confirmOf('Save', edit).click();
    // The edit page carries the same heading: the saved detail page is the one whose address no longer ends in /edit.
    await page.waitForURL((url) => url.pathname === `/console/service-policies/${policy.id}`);
    await page.getByRole('heading', { name: 'team-dials-web', level: 1 }).waitFor();
    assert.deepEqual((await admin.read(`/service-policies/${policy.id}`)).identityRoles, []);

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText(/Nobody gains or loses access|Lose access: 0/).first().waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await admin.read(`/service-policies/${policy.id}`)).id, policy.id, 'cancel deletes nothing');
    await page.getByRole('button', { name: 'Delete' }).click();
    await confirmOf('Delete', await previewOf({ entity: 'service-policies', id: policy.id, delete: true, change: {} })).click();
    await page.getByRole('heading', { name: 'Service policies', level: 1 }).waitFor();
    assert.deepEqual(await admin.named('/service-policies', 'team-dials-web'), []);
  });

  it("shows the API's refusal at the field it names and saves nothing", async () => {
    await admin.create('/edge-router-policies', { name: 'taken', semantic: 'AnyOf', identityRoles: [], edgeRouterRoles: [] });
    await page.goto('/console/edge-router-policies/new');
    await page.getByLabel('Name', { exact: true }).fill('taken');
    await page.getByRole('button', { name: 'Review the change' }).click();
    await page.getByRole('button', { name: /^Create: / }).click();
    const problem = page.locator('#problem-name');
    await problem.waitFor();
    assert.match(await problem.innerText(), /name/i);
    assert.equal(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.equal((await admin.named('/edge-router-policies', 'taken')).length, 1, 'still one policy named taken');
    // Positive control: another name is saved.
    await page.getByLabel('Name', { exact: true }).fill('not-taken');
    await page.getByRole('button', { name: 'Review the change' }).click();
    await page.getByRole('button', { name: /^Create: / }).click();
    await page.getByRole('heading', { name: 'not-taken', level: 1 }).waitFor();
    assert.equal((await admin.named('/edge-router-policies', 'not-taken')).length, 1);
    // Its delete too is previewed first and done on confirm.
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: /^Delete: 0 gain, 0 lose access$/ }).click();
    await page.getByRole('heading', { name: 'Edge router policies', level: 1 }).waitFor();
    assert.deepEqual(await admin.named('/edge-router-policies', 'not-taken'), []);
  });

  it('gives an identity access to a service: a Dial service policy, an edge router policy and a service edge router policy made in the console turn the reach page from blocked to reachable up to the running-router layers', async () => {
    const reachPage = `/console/reach?identity=${ids.alice}&service=${ids.web}&permission=dial`;
    await page.goto(reachPage);
    await page.getByRole('heading', { name: 'alice cannot dial web', exact: false }).waitFor();
    const before = await reachOf(ids.alice!, ids.web!);
    assert.deepEqual(await layersShown(page), before.layers.map((l: any) => ({ layer: l.layer, ok: l.ok, message: l.message })));
    const layer = (answer: any, name: string) => answer.layers.find((l: any) => l.layer === name);
    assert.equal(layer(before, 'service-policy').ok, false);

    // The service policy: alice (picked by name) may dial #web.
    await page.goto('/console/service-policies');
    await page.getByRole('link', { name: 'New service policy' }).click();
    await page.getByLabel('Name', { exact: true }).fill('alice-dials-web');
    await page.getByLabel('Type').selectOption('Dial');
    await pickerOf('Identity roles').getByLabel('Find identities by name').fill('ali');
    await pickerOf('Identity roles').getByRole('button', { name: 'Add @alice' }).click();
    await pickerOf('Identity roles').getByText('Matches 1 identities (first 1: alice)').waitFor();
    await pickerOf('Service roles').getByLabel('Attribute for Service roles').fill('web');
    await pickerOf('Service roles').getByRole('button', { name: 'Add attribute' }).click();
    await pickerOf('Service roles').getByText('Matches 1 services (first 1: web)').waitFor();
    await page.getByRole('button', { name: 'Review the change' }).click();
    await page.getByRole('region', { name: 'Gain access: 1', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Create: 1 gain, 0 lose access', exact: true }).click();
    await page.getByRole('heading', { name: 'alice-dials-web', level: 1 }).waitFor();

    // The edge router policy: alice may use every router.
    await page.goto('/console/edge-router-policies/new');
    await page.getByLabel('Name', { exact: true }).fill('alice-uses-routers');
    await pickerOf('Identity roles').getByLabel('Find identities by name').fill('alice');
    await pickerOf('Identity roles').getByRole('button', { name: 'Add @alice' }).click();
    await pickerOf('Edge router roles').getByRole('button', { name: 'Add #all' }).click();
    await page.getByRole('button', { name: 'Review the change' }).click();
    await page.getByRole('button', { name: /^Create: \d+ gain, 0 lose access$/ }).click();
    await page.getByRole('heading', { name: 'alice-uses-routers', level: 1 }).waitFor();

    // The service edge router policy: web is served by the routers with #edge.
    await page.goto('/console/service-edge-router-policies/new');
    await page.getByLabel('Name', { exact: true }).fill('web-on-edge');
    await pickerOf('Service roles').getByLabel('Attribute for Service roles').fill('web');
    await pickerOf('Service roles').getByRole('button', { name: 'Add attribute' }).click();
    await pickerOf('Edge router roles').getByLabel('Attribute for Edge router roles').fill('edge');
    await pickerOf('Edge router roles').getByRole('button', { name: 'Add attribute' }).click();
    await pickerOf('Edge router roles').getByText('Matches 1 edge routers (first 1: router-1)').waitFor();
    await page.getByRole('button', { name: 'Review the change' }).click();
    await page.getByRole('button', { name: /^Create: \d+ gain, 0 lose access$/ }).click();
    await page.getByRole('heading', { name: 'web-on-edge', level: 1 }).waitFor();

    // Saved as the console showed them.
    assert.deepEqual((await admin.named('/service-policies', 'alice-dials-web'))[0].identityRoles, [`@${ids.alice}`]);
    assert.deepEqual((await admin.named('/edge-router-policies', 'alice-uses-routers'))[0].edgeRouterRoles, ['#all']);
    assert.deepEqual((await admin.named('/service-edge-router-policies', 'web-on-edge'))[0].edgeRouterRoles, ['#edge']);
    await page.goto('/console/service-edge-router-policies');
    await page.getByRole('link', { name: 'web-on-edge' }).waitFor();
    await accessible(page, 'console-service-edge-router-policies');

    // The three policy layers now pass; what needs a running router (none runs here) still blocks, as the API says.
    await page.goto(reachPage);
    const afterwards = await reachOf(ids.alice!, ids.web!);
    for (const name of ['service-policy', 'edge-router-policy', 'service-edge-router-policy']) assert.equal(layer(afterwards, name).ok, true, name);
    assert.equal(layer(afterwards, 'online-router').ok, false);
    await page.locator('tr[data-layer="service-policy"].layer-ok').waitFor();
    assert.deepEqual(await layersShown(page), afterwards.layers.map((l: any) => ({ layer: l.layer, ok: l.ok, message: l.message })));
    await accessible(page, 'console-reach-after-policies');
  });
});
