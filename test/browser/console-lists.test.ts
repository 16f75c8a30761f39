/**
 * The console's other screens in Chromium against a real controller (issue 45, must-have 4): edge routers (create
 * shows the enrollment JWT, re-enroll replaces it), terminators, posture checks, CAs with their verification,
 * external JWT signers with "check a token", auth policies, API sessions and sessions. Each form's refusal by the
 * API shows the API's message at the field and changes nothing; each screen has no serious accessibility violation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage, screenshot } from '../helpers/browser.js';
import { assertAccessible, signInToConsole } from '../helpers/console-pages.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { AUDIENCE, ISSUER, signingCertificate, signToken } from '../helpers/external-jwt.js';
import { createIdentity } from '../helpers/fixtures.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { makeOpensslPki } from '../helpers/openssl-pki.js';

describe(`console screens: routers, lists, CAs, signers, policies, sessions (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let browser: Browser;
  let page: Page;
  let service: string;

  /** Opens a console path in the signed-in page and waits for its main heading. */
  const open = async (path: string, heading: string | RegExp) => {
    await page.goto(path);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  };
  const count = async (path: string) => (await admin.get(`${path}${path.includes('?') ? '&' : '?'}limit=1`)).json().meta.pagination.totalCount as number;

  before(async () => {
    ctl = await startTestController();
    admin = managementClient(ctl, await ctl.adminToken());
    service = await createdId(admin, '/services', { name: 'crm', roleAttributes: ['crm'] });
    browser = await launchBrowser();
    page = await newPage(browser, { baseURL: ctl.baseUrl });
    await page.goto('/console/edge-routers');
    await signInToConsole(page);
    await page.waitForURL('**/console/edge-routers');
  });
  after(async () => {
    await browser?.close();
    await ctl?.close();
  });

  it('creates an edge router that opens with its enrollment JWT, and re-enrolls it with a new one', async () => {
    await open('/console/edge-routers/new', 'New edge router');
    await assertAccessible(page);
    await screenshot(page, 'console-edge-router-new');
    // Refused by the API (an empty name): the message at the field, nothing created.
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#problem-name').waitFor();
    assert.match((await page.locator('#problem-name').textContent()) ?? '', /name/i);
    assert.equal(await count('/edge-routers'), 0);

    await page.getByLabel('Name').fill('er-console');
    await page.getByLabel('Role attributes').fill('public, eu');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { level: 1, name: 'er-console' }).waitFor();
    const [router] = (await admin.get(`/edge-routers?filter=${encodeURIComponent('name = "er-console"')}`)).json().data;
    assert.deepEqual(router.roleAttributes.sort(), ['eu', 'public']);
    assert.equal(await page.getByLabel('Enrollment JWT').inputValue(), router.enrollmentJwt);
    await assertAccessible(page);
    await screenshot(page, 'console-edge-router');

    await page.getByRole('button', { name: 'Re-enroll' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForFunction((old) => (globalThis as any).document.querySelector('#enrollment-jwt')?.value !== old, router.enrollmentJwt);
    const renewed = (await admin.get(`/edge-routers/${router.id}`)).json().data;
    assert.notEqual(renewed.enrollmentJwt, router.enrollmentJwt);
    assert.equal(await page.getByLabel('Enrollment JWT').inputValue(), renewed.enrollmentJwt);

    await open('/console/edge-routers', 'Edge routers');
    await page.getByRole('link', { name: 'er-console' }).waitFor();
    await assertAccessible(page);
    await screenshot(page, 'console-edge-routers');
  });

  it('lists terminators with the names of their service and router', async () => {
    const router = (await admin.get(`/edge-routers?filter=${encodeURIComponent('name = "er-console"')}`)).json().data[0].id as string;
    await createdId(admin, '/terminators', { service, router, binding: 'transport', address: 'tcp:10.0.0.7:443' });
    await open('/console/terminators', 'Terminators');
    const row = page.locator('tbody tr', { hasText: 'tcp:10.0.0.7:443' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /crm.*er-console.*transport/);
    await assertAccessible(page);
    await screenshot(page, 'console-terminators');
  });

  it('creates and edits a posture check, and shows a refusal at its field', async () => {
    await open('/console/posture-checks/new', 'New posture check');
    await page.getByLabel('Name').fill('corp-macs');
    await page.getByLabel('Type').selectOption('MAC');
    await page.getByLabel('MAC addresses').fill('aa:bb:cc:dd:ee:ff, 00:11:22:33:44:55');
    await assertAccessible(page);
    await screenshot(page, 'console-posture-check-new');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { level: 1, name: 'Posture checks' }).waitFor();
    await page.getByRole('link', { name: 'corp-macs' }).waitFor();
    const [check] = (await admin.get(`/posture-checks?filter=${encodeURIComponent('name = "corp-macs"')}`)).json().data;
    assert.deepEqual([check.typeId, check.macAddresses], ['MAC', ['aa:bb:cc:dd:ee:ff', '00:11:22:33:44:55']]);
    await assertAccessible(page);
    await screenshot(page, 'console-posture-checks');

    await page.getByRole('link', { name: 'corp-macs' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit posture check corp-macs' }).waitFor();
    await page.getByLabel('Name').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#problem-name').waitFor();
    assert.equal((await admin.get(`/posture-checks/${check.id}`)).json().data.name, 'corp-macs', 'nothing changed');
    await page.getByLabel('Name').fill('corp-macs-2');
    await page.getByLabel('MAC addresses').fill('aa:bb:cc:dd:ee:ff');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('link', { name: 'corp-macs-2' }).waitFor();
    const edited = (await admin.get(`/posture-checks/${check.id}`)).json().data;
    assert.deepEqual([edited.name, edited.macAddresses], ['corp-macs-2', ['aa:bb:cc:dd:ee:ff']]);
  });

  it("registers a CA and verifies it: refuses a wrong certificate with the API's message and accepts the right one", async () => {
    const acme = makeOpensslPki('Console Acme');
    await open('/console/cas/new', 'New certificate authority');
    // Not a certificate: the API's refusal at the field, nothing registered.
    await page.getByLabel('Name').fill('acme');
    await page.getByLabel('CA certificate (PEM)').fill('hello');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#problem-certPem').waitFor();
    assert.equal(await count('/cas'), 0);
    await assertAccessible(page);
    await screenshot(page, 'console-ca-new');
    await page.getByLabel('CA certificate (PEM)').fill(acme.root.certPem);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { level: 1, name: 'acme' }).waitFor();
    const [ca] = (await admin.get(`/cas?filter=${encodeURIComponent('name = "acme"')}`)).json().data;
    const { id: caId, verificationToken } = ca as { id: string; verificationToken: string };
    assert.equal(await page.getByText(verificationToken).count(), 1, 'the token to put in the common name is shown');

    // The API's own words for a certificate with the wrong common name, at the field; the CA stays unverified.
    const wrong = acme.issue('not-the-token', { signer: acme.root, extensions: ['basicConstraints=CA:FALSE'] }).certPem;
    const refused = await ctl.fetch(`/edge/management/v1/cas/${caId}/verify`, { method: 'POST', headers: { 'svc-session': await ctl.adminToken(), 'content-type': 'text/plain' }, body: wrong });
    assert.equal(refused.status, 400);
    const apiMessage = refused.json().error as { message: string; cause?: { reason?: string } };
    await page.getByLabel('Verification certificate (PEM)').fill(wrong);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.locator('#problem-certificate').waitFor();
    const shown = (await page.locator('#problem-certificate').textContent()) ?? '';
    assert.ok(shown === apiMessage.message || shown === apiMessage.cause?.reason, `${shown} is the API's ${JSON.stringify(apiMessage)}`);
    assert.equal((await admin.get(`/cas/${caId}`)).json().data.isVerified, false);
    await assertAccessible(page);
    await screenshot(page, 'console-ca-verification');

    await page.getByLabel('Verification certificate (PEM)').fill(acme.issue(verificationToken, { signer: acme.root, extensions: ['basicConstraints=CA:FALSE'] }).certPem);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('This CA is verified.').waitFor();
    assert.equal((await admin.get(`/cas/${caId}`)).json().data.isVerified, true);
    await open('/console/cas', 'Certificate authorities');
    await page.getByRole('link', { name: 'acme' }).waitFor();
    await assertAccessible(page);
    await screenshot(page, 'console-cas');
  });

  it('creates an external JWT signer and checks a token against it: accepted, or refused naming the check', async () => {
    const { certPem, key } = await signingCertificate(ctl.pki, 'console-kid');
    const carol = await createIdentity(ctl.running.database, { name: 'carol' });
    await open('/console/external-jwt-signers/new', 'New external JWT signer');
    await page.getByLabel('Name').fill('corp-idp');
    await page.getByLabel('Issuer').fill(ISSUER);
    await page.getByLabel('Audience').fill(AUDIENCE);
    await page.getByLabel('Certificate (PEM)').fill(certPem);
    await page.getByLabel('Key id (kid)').fill('console-kid');
    await assertAccessible(page);
    await screenshot(page, 'console-external-jwt-signer-new');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { level: 1, name: 'External JWT signers' }).waitFor();
    const [created] = (await admin.get(`/external-jwt-signers?filter=${encodeURIComponent('name = "corp-idp"')}`)).json().data;
    const signer = created.id as string;
    assert.deepEqual([created.issuer, created.kid, created.jwksEndpoint, created.enabled], [ISSUER, 'console-kid', null, true]);
    await page.getByRole('link', { name: 'corp-idp' }).waitFor();
    await assertAccessible(page);
    await screenshot(page, 'console-external-jwt-signers');
    await page.getByRole('link', { name: 'corp-idp' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit signer corp-idp' }).waitFor();

    await page.getByLabel('JWT').fill(await signToken({ sub: carol.id }, { key, issuer: 'https://wrong.example' }));
    await page.getByRole('button', { name: 'Check', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Refused at issuer' }).waitFor();
    await assertAccessible(page);
    await screenshot(page, 'console-external-jwt-signer-check');

    await page.getByLabel('JWT').fill(await signToken({ sub: carol.id }, { key }));
    await page.getByRole('button', { name: 'Check', exact: true }).click();
    await page.getByText(`Accepted: token maps to identity carol (${carol.id})`).waitFor();

    // Edit: an audience the API refuses (empty) stays at its field; a real one is saved.
    await page.getByLabel('Audience').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#problem-audience').waitFor();
    await page.getByLabel('Audience').fill('svc-console');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { level: 1, name: 'External JWT signers' }).waitFor();
    assert.equal((await admin.get(`/external-jwt-signers/${signer}`)).json().data.audience, 'svc-console');
  });

  it("edits an auth policy's password rules, refusing a too-short minimum at its field", async () => {
    await open('/console/auth-policies', 'Auth policies');
    await page.getByRole('link', { name: 'Default' }).waitFor();
    await assertAccessible(page);
    await screenshot(page, 'console-auth-policies');
    await page.getByRole('link', { name: 'Default' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit auth policy Default' }).waitFor();
    await page.getByLabel('Minimum password length').fill('2');
    await page.getByRole('button', { name: 'Save' }).click();
    const problem = page.locator('[id="problem-primary.updb.minPasswordLength"]');
    await problem.waitFor();
    assert.match((await problem.textContent()) ?? '', /5/);
    assert.equal((await admin.get('/auth-policies/default')).json().data.primary.updb.minPasswordLength, 5, 'nothing changed');
    await assertAccessible(page);
    await screenshot(page, 'console-auth-policy');

    await page.getByLabel('Minimum password length').fill('12');
    await page.getByLabel('Failed attempts before lockout (0: never)').fill('7');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { level: 1, name: 'Auth policies' }).waitFor();
    const updb = (await admin.get('/auth-policies/default')).json().data.primary.updb;
    assert.deepEqual([updb.minPasswordLength, updb.maxAttempts], [12, 7]);
    assert.equal(updb.allowed, true, 'what the form did not change stays');
  });

  it("lists API sessions and sessions with names, and ends one of each", async () => {
    const dave = await createIdentity(ctl.running.database, { name: 'dave', password: 'dave-password-1' });
    await admin.patch(`/identities/${dave.id}`, { roleAttributes: ['staff'] });
    await createdId(admin, '/service-policies', { name: 'staff-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#staff'], serviceRoles: ['#crm'] });
    await createdId(admin, '/edge-router-policies', { name: 'staff-routers', semantic: 'AnyOf', identityRoles: ['#staff'], edgeRouterRoles: ['#all'] });
    await createdId(admin, '/service-edge-router-policies', { name: 'crm-routers', semantic: 'AnyOf', serviceRoles: ['#crm'], edgeRouterRoles: ['#all'] });
    const login = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'dave', password: 'dave-password-1' } });
    const daveToken = login.json().data.token as string;
    const opened = await ctl.fetch('/edge/client/v1/sessions', { method: 'POST', headers: { 'svc-session': daveToken }, body: { serviceId: service, type: 'Dial' } });
    assert.equal(opened.status, 201, opened.text);

    await open('/console/sessions', 'Sessions');
    const row = page.locator('tbody tr', { hasText: 'dave' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /crm.*dave.*Dial/);
    await assertAccessible(page);
    await screenshot(page, 'console-sessions');
    await row.getByRole('button', { name: 'End' }).click();
    await row.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Nothing matches.').waitFor();
    assert.equal(await count('/sessions'), 0);

    const daveApiSessions = `/api-sessions?filter=${encodeURIComponent(`identityId = "${dave.id}"`)}`;
    assert.equal(await count(daveApiSessions), 1);
    await open('/console/api-sessions', 'API sessions');
    const apiRow = page.locator('tbody tr', { hasText: 'dave' });
    await apiRow.waitFor();
    await assertAccessible(page);
    await screenshot(page, 'console-api-sessions');
    await apiRow.getByRole('button', { name: 'Revoke' }).click();
    await apiRow.getByRole('button', { name: 'Confirm' }).click();
    await page.locator('tbody tr', { hasText: 'dave' }).waitFor({ state: 'detached' });
    assert.equal(await count(daveApiSessions), 0);
    const refused = await ctl.fetch('/edge/client/v1/current-api-session', { headers: { 'svc-session': daveToken } });
    assert.equal(refused.status, 401, 'the revoked session no longer works');
  });
});
