/**
 * An identity's page in Chromium (issue 45): the enrollment JWT as text, as a downloaded file and as a QR code, its
 * re-issue (a new JWT; the old one no longer enrolls); role attributes edited with the change preview before saving;
 * MFA reset of an identity that enrolled TOTP through the client API; authenticators and API sessions listed by the
 * API; a draft of role attributes kept across a reload; axe clean and a screenshot.
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
    await page.waitForFunction((old) => (document.querySelector('#identity-jwt') as HTMLTextAreaElement | null)?.value !== old, jwt);
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
});
