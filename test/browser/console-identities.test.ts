/**
 * An identity's page in Chromium (issue 45): the enrollment JWT as text, as a downloaded file and as a QR code, its
 * re-issue (a new JWT; the old one no longer enrolls); role attributes edited with the change preview before saving;
 * MFA reset of an identity that enrolled TOTP through the client API; authenticators and API sessions listed by the
 * API; a draft of role attributes kept across a reload; axe clean and a screenshot. Creating an identity (drafted,
 * refused at the username field, then created), a password reset, the identity's sessions filtered by the API and
 * ended, and delete.
 *
 * @ui-only: the identity, enrollment and re-enroll APIs run on both stores in test/e2e/identity-lifecycle.test.ts and test/e2e/management-re-enroll.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage } from '../helpers/browser.js';
import { accessible, adminApi, signInToConsole, type AdminApi } from '../helpers/console-session.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { totpCode } from '../helpers/totp.js';

describe(`identity page in Chromium (${testDialect})`, () => {
  let ctl: TestController;
  let browser: Browser;
  let page: Page;
  let admin: AdminApi;
  let deviceId: string;

  before(async () => {
    ctl = await startTestController();
    admin = await adminApi(ctl);
    await admin.create('/services', { name: 'id-wiki', roleAttributes: ['docs'] });
    await admin.create('/service-policies', { name: 'eng-docs', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#eng'], serviceRoles: ['#docs'] });
    deviceId = await admin.create('/identities', { name: 'id-laptop', type: 'Device', isAdmin: false, enrollment: { ott: true } });
    browser = await launchBrowser();
    page = await newPage(browser, { baseURL: ctl.baseUrl, acceptDownloads: true });
    await page.goto(`/console/identities/${deviceId}`);
    await signInToConsole(page);
    await page.getByRole('heading', { name: 'id-laptop', level: 1 }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await ctl?.close();
  });

  it('shows the enrollment JWT as text, a QR code and a download, and re-issues it', async () => {
    const jwt = (await admin.read(`/identities/${deviceId}`)).enrollment.ott.jwt as string;
    assert.equal(await page.getByLabel(/Enrollment JWT/).inputValue(), jwt);
    const qr = page.getByRole('img', { name: "QR code of id-laptop's enrollment JWT" });
    await qr.waitFor();
    assert.match((await qr.getAttribute('src')) ?? '', /^data:image\/svg\+xml;base64,/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the JWT' }).click()]);
    assert.equal(download.suggestedFilename(), 'id-laptop.jwt');
    assert.equal(readFileSync((await download.path())!, 'utf8'), jwt);
    await accessible(page, 'console-identity');

    await page.getByRole('button', { name: 'Re-issue' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    // The page's CSP refuses evaluated strings, so the new JWT is awaited from outside the page.
    const field = page.getByLabel(/Enrollment JWT/);
    for (let i = 0; i < 100 && (await field.inputValue()) === jwt; i++) await page.waitForTimeout(50);
    const next = (await admin.read(`/identities/${deviceId}`)).enrollment.ott.jwt as string;
    assert.notEqual(next, jwt);
    assert.equal(await page.getByLabel(/Enrollment JWT/).inputValue(), next);
    const old = await ctl.fetch(`/edge/client/v1/enroll?method=ott&token=${JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()).jti}`, { method: 'POST', body: 'x', headers: { 'content-type': 'application/x-pem-file' } });
    assert.ok(old.status >= 400 && old.status < 500, `the old JWT no longer enrolls: ${old.status}`);
  });

  it('previews what new role attributes give before saving them, and keeps the draft across a reload', async () => {
    const field = page.getByRole('textbox', { name: 'Role attributes', exact: true });
    await field.fill('eng');
    await page.getByRole('button', { name: /^Save: 1 gain, 0 lose access$/ }).waitFor();
    await page.getByText('id-wiki').first().waitFor();
    await page.reload();
    await page.getByRole('button', { name: /^Save: 1 gain, 0 lose access$/ }).waitFor();
    assert.deepEqual((await admin.read(`/identities/${deviceId}`)).roleAttributes, [], 'not saved yet');
    await page.getByRole('button', { name: /^Save: 1 gain/ }).click();
    await page.getByRole('button', { name: 'Save', exact: true }).waitFor();
    assert.deepEqual((await admin.read(`/identities/${deviceId}`)).roleAttributes, ['eng']);
  });

  it('resets the MFA of an identity that enrolled TOTP', async () => {
    const user = await createIdentity(ctl.running.database, { name: 'id-mfa-user', username: 'id-mfa-user', password: 'mfa-user-password' });
    const login = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'id-mfa-user', password: 'mfa-user-password' } });
    const headers = { 'svc-session': login.json().data.token as string };
    const start = await ctl.fetch('/edge/client/v1/current-identity/mfa', { method: 'POST', headers, body: {} });
    assert.equal(start.status, 201, start.text);
    const provisioningUrl = start.json().data.provisioningUrl as string;
    const verified = await ctl.fetch('/edge/client/v1/current-identity/mfa/verify', { method: 'POST', headers, body: { code: totpCode(provisioningUrl, new Date()) } });
    assert.equal(verified.status, 200, verified.text);
    assert.equal((await admin.read(`/identities/${user.id}`)).isMfaEnabled, true);

    await page.goto(`/console/identities/${user.id}`);
    await page.getByRole('heading', { name: 'id-mfa-user', level: 1 }).waitFor();
    await page.getByRole('table').filter({ hasText: 'updb' }).waitFor();
    await page.getByRole('button', { name: 'Reset MFA' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('button', { name: 'Reset MFA' }).waitFor({ state: 'detached' });
    assert.equal((await admin.read(`/identities/${user.id}`)).isMfaEnabled, false);
    await accessible(page, 'console-identity-user');
  });

  it('creates an identity from a form kept as a draft across a reload, then hands over its JWT and re-issues a different one', async () => {
    await page.goto('/console/identities');
    await page.getByRole('link', { name: 'New identity' }).click();
    await page.getByRole('heading', { name: 'New identity', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('id-kiosk');
    await page.getByLabel('Type', { exact: true }).selectOption('Device');
    await page.getByLabel('Role attributes').fill('kiosks, eu');
    await page.getByLabel('Enrollment', { exact: true }).selectOption('ott');
    await page.reload();
    await page.getByRole('heading', { name: 'New identity', level: 1 }).waitFor();
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'id-kiosk');
    assert.equal(await page.getByLabel('Role attributes').inputValue(), 'kiosks, eu');
    assert.deepEqual(await admin.named('/identities', 'id-kiosk'), [], 'nothing saved before Create');
    await accessible(page, 'console-identity-create');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'id-kiosk', level: 1 }).waitFor();

    const [created] = await admin.named('/identities', 'id-kiosk');
    assert.equal(created.type.name, 'Device');
    assert.deepEqual(created.roleAttributes, ['kiosks', 'eu']);
    const jwt = (await admin.read(`/identities/${created.id}`)).enrollment.ott.jwt as string;
    assert.equal(await page.getByLabel(/Enrollment JWT/).inputValue(), jwt);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the JWT' }).click()]);
    assert.equal(readFileSync((await download.path())!, 'utf8'), jwt);
    await page.getByRole('button', { name: 'Re-issue' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    const field = page.getByLabel(/Enrollment JWT/);
    for (let i = 0; i < 100 && (await field.inputValue()) === jwt; i++) await page.waitForTimeout(50);
    const next = (await admin.read(`/identities/${created.id}`)).enrollment.ott.jwt as string;
    assert.notEqual(next, jwt);
    assert.equal(await field.inputValue(), next);
  });

  it('refuses a password enrollment for a username already taken at the username field, then creates one with a free username', async () => {
    await createIdentity(ctl.running.database, { name: 'id-taken', username: 'taken-user', password: 'taken-user-password' });
    await page.goto('/console/identities/new');
    await page.getByRole('heading', { name: 'New identity', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('id-person');
    await page.getByLabel('Enrollment', { exact: true }).selectOption('updb');
    await page.getByLabel('Username').fill('taken-user');
    await page.getByRole('button', { name: 'Create' }).click();
    const problem = page.locator('#problem-enrollment\\.updb');
    await problem.waitFor();
    assert.match((await problem.textContent()) ?? '', /taken-user/);
    assert.equal(await page.getByLabel('Username').getAttribute('aria-invalid'), 'true');
    assert.deepEqual(await admin.named('/identities', 'id-person'), [], 'nothing created');
    await accessible(page, 'console-identity-create-refused');

    await page.getByLabel('Username').fill('person-user');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'id-person', level: 1 }).waitFor();
    const [created] = await admin.named('/identities', 'id-person');
    const updb = (await admin.read(`/identities/${created.id}`)).enrollment.updb;
    assert.equal(updb.username, 'person-user');
    assert.equal(await page.getByLabel(/Enrollment JWT/).inputValue(), updb.jwt);
  });

  it("resets a password with one re-enroll request: the old one stops working and a password enrollment for the same username is shown", async () => {
    const user = await createIdentity(ctl.running.database, { name: 'id-forgetful', username: 'forgetful', password: 'forgetful-password' });
    const login = () => ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'forgetful', password: 'forgetful-password' } });
    assert.equal((await login()).status, 200, 'the password works before the reset');
    const [password] = (await admin.read(`/identities/${user.id}/authenticators`)) as Array<{ id: string }>;
    await page.goto(`/console/identities/${user.id}`);
    await page.getByRole('heading', { name: 'id-forgetful', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Reset password' }).click();
    await page.getByText("Reset forgetful's password?").waitFor();
    const writes: string[] = [];
    const seeWrite = (request: { method(): string; url(): string }) => {
      if (request.method() !== 'GET') writes.push(`${request.method()} ${new URL(request.url()).pathname}`);
    };
    page.on('request', seeWrite);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByLabel(/Enrollment JWT/).waitFor();
    page.off('request', seeWrite);
    assert.deepEqual(writes, [`POST /edge/management/v1/authenticators/${password!.id}/re-enroll`], 'one request: the re-enroll');
    const identity = await admin.read(`/identities/${user.id}`);
    assert.equal(identity.enrollment.updb.username, 'forgetful');
    assert.equal(await page.getByLabel(/Enrollment JWT/).inputValue(), identity.enrollment.updb.jwt);
    assert.deepEqual(await admin.read(`/identities/${user.id}/authenticators?limit=10`), []);
    assert.equal((await login()).status, 401, 'the old password no longer logs in');
  });

  it("lists the identity's API sessions and sessions, asked of the API for this identity only, and ends them", async () => {
    const user = await createIdentity(ctl.running.database, { name: 'id-busy', username: 'busy', password: 'busy-password' });
    const serviceId = await admin.create('/services', { name: 'id-busy-service' });
    await admin.create('/service-policies', { name: 'busy-dials', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${user.id}`], serviceRoles: [`@${serviceId}`] });
    const routerId = await admin.create('/edge-routers', { name: 'id-busy-router' });
    await admin.create('/edge-router-policies', { name: 'busy-routers', semantic: 'AnyOf', identityRoles: [`@${user.id}`], edgeRouterRoles: [`@${routerId}`] });
    await admin.create('/service-edge-router-policies', { name: 'busy-service-routers', semantic: 'AnyOf', serviceRoles: [`@${serviceId}`], edgeRouterRoles: [`@${routerId}`] });
    const login = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'busy', password: 'busy-password' } });
    const headers = { 'svc-session': login.json().data.token as string };
    const opened = await ctl.fetch('/edge/client/v1/sessions', { method: 'POST', headers, body: { serviceId, type: 'Dial' } });
    assert.equal(opened.status, 201, opened.text);
    const asked: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (/\/edge\/management\/v1\/(api-)?sessions$/.test(url.pathname)) asked.push(`${url.pathname}${url.search}`);
    });

    await page.goto(`/console/identities/${user.id}`);
    await page.getByRole('heading', { name: 'id-busy', level: 1 }).waitFor();
    const sessions = page.getByRole('region', { name: 'Sessions of id-busy' });
    await sessions.getByRole('cell', { name: 'id-busy-service' }).waitFor();
    const apiSessions = page.getByRole('region', { name: 'API sessions of id-busy' });
    await apiSessions.getByRole('cell', { name: 'password' }).waitFor();
    assert.equal(asked.length, 2, asked.join('\n'));
    const filter = `identityId = "${user.id}"`;
    for (const request of asked) {
      const search = new URL(request, 'https://x').searchParams;
      assert.equal(search.get('filter'), filter, request);
      assert.ok(Number(search.get('limit')) <= 100, request);
    }
    await apiSessions.scrollIntoViewIfNeeded();
    await accessible(page, 'console-identity-sessions');

    await sessions.getByRole('button', { name: 'End' }).click();
    await sessions.getByRole('button', { name: 'Confirm' }).click();
    await sessions.getByText('Nothing matches.').waitFor();
    await apiSessions.getByRole('button', { name: 'Revoke' }).click();
    await apiSessions.getByRole('button', { name: 'Confirm' }).click();
    const query = `?filter=${encodeURIComponent(filter)}&limit=10`;
    for (let i = 0; i < 100 && (await admin.read(`/api-sessions${query}`)).length > 0; i++) await page.waitForTimeout(50);
    assert.deepEqual(await admin.read(`/sessions${query}`), []);
    assert.deepEqual(await admin.read(`/api-sessions${query}`), []);
  });

  it('deletes an identity after a question naming what goes with it', async () => {
    const user = await createIdentity(ctl.running.database, { name: 'id-leaver', username: 'leaver', password: 'leaver-password' });
    await page.goto(`/console/identities/${user.id}`);
    await page.getByRole('heading', { name: 'id-leaver', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Delete', exact: true }).first().click();
    await page.getByText('Delete id-leaver, its authenticators, enrollments and sessions?').waitFor();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('heading', { name: 'Identities', level: 1 }).waitFor();
    const gone = await ctl.fetch(`/edge/management/v1/identities/${user.id}`, { headers: { 'svc-session': await ctl.adminToken() } });
    assert.equal(gone.status, 404);
  });
});
