/**
 * The controller's login page in Chromium and without JavaScript (issue 45, item 6): the product name and a layout
 * under the strict CSP (no inline script or style, the stylesheet from the controller); a password sign-in with
 * JavaScript off; the same sentence and status for an unknown user and a wrong password; TOTP enrollment in the
 * browser (QR code, secret, recovery codes to download, and a confirmation before they count); a recovery code with
 * letters accepted; axe clean and a screenshot of each page.
 *
 * @ui-only: the logins and TOTP enrollment under the page run on both stores in test/e2e/oidc-totp.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as OTPAuth from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { CONTENT_SECURITY_POLICY } from '../../src/http/console/content-security-policy.js';
import { launchBrowser, newPage } from '../helpers/browser.js';
import { accessible } from '../helpers/console-session.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { authPolicyBody, createdId, managementClient } from '../helpers/management.js';
import { REDIRECT_URI } from '../helpers/oidc.js';

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const authorizeUrl = (state: string) =>
  `/oidc/authorization?${new URLSearchParams({ response_type: 'code', client_id: 'svc', redirect_uri: REDIRECT_URI, scope: 'openid', code_challenge: CHALLENGE, code_challenge_method: 'S256', state })}`;

/** Waits for the browser to be sent to the client's redirect URI, and returns the code it carries. */
async function codeFrom(page: Page, act: () => Promise<void>): Promise<string> {
  const [request] = await Promise.all([page.waitForRequest((r) => r.url().startsWith(REDIRECT_URI)), act()]);
  return new URL(request.url()).searchParams.get('code') ?? '';
}

describe(`login page (${testDialect})`, () => {
  let ctl: TestController;
  let browser: Browser;

  before(async () => {
    ctl = await startTestController();
    const admin = managementClient(ctl, await ctl.adminToken());
    const totpPolicy = await createdId(admin, '/auth-policies', { ...authPolicyBody('needs-totp'), secondary: { requireTotp: true, requireExtJwt: null } });
    await createIdentity(ctl.running.database, { name: 'page-user', username: 'page-user', password: 'page-password-1' });
    await createIdentity(ctl.running.database, { name: 'totp-user', username: 'totp-user', password: 'totp-password-1', authPolicyId: totpPolicy });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await ctl?.close();
  });

  it('serves the page under the strict CSP, with its stylesheet from the controller and no inline script or style', async () => {
    const start = await ctl.fetch(authorizeUrl('s0'));
    const page = await ctl.fetch(String(start.headers.location), { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200);
    const policy = String(page.headers['content-security-policy']);
    assert.equal(policy, CONTENT_SECURITY_POLICY.replace("form-action 'self'", "form-action 'self' http://127.0.0.1:53123"));
    assert.doesNotMatch(page.text, /<script|\sstyle=|<style/i);
    assert.match(page.text, /<p class="brand">svc<\/p>/);
    const css = /href="(\/oidc\/assets\/login-[0-9a-f]{12}\.css)"/.exec(page.text)?.[1];
    assert.ok(css, page.text);
    const sheet = await ctl.fetch(css);
    assert.equal(sheet.status, 200);
    assert.match(String(sheet.headers['content-type']), /^text\/css/);
    assert.match(String(sheet.headers['cache-control']), /immutable/);
  });

  it('refuses an unknown user, a wrong password and an empty one with the same sentence and status', async () => {
    const html = { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' };
    const answers = [];
    for (const [username, password] of [['nobody-here', 'whatever-1'], ['page-user', 'wrong-password'], ['page-user', 'x']] as const) {
      const start = await ctl.fetch(authorizeUrl('s1'));
      const id = new URL(String(start.headers.location), ctl.baseUrl).searchParams.get('authRequestID')!;
      const res = await ctl.fetch('/oidc/login/password', { method: 'POST', headers: html, body: new URLSearchParams({ authRequestId: id, username, password }).toString() });
      answers.push({ status: res.status, problem: /role="alert" id="problem">([^<]*)</.exec(res.text)?.[1] });
    }
    assert.equal(new Set(answers.map((a) => JSON.stringify(a))).size, 1, JSON.stringify(answers));
    assert.equal(answers[0]!.status, 401);
    assert.match(answers[0]!.problem!, /^Sign-in failed\. Check the username and password/);
  });

  it('signs in with a password with JavaScript off (axe needs JavaScript: the pages are checked in the next test)', async () => {
    const page = await newPage(browser, { baseURL: ctl.baseUrl, javaScriptEnabled: false });
    await page.goto(authorizeUrl('s2'));
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Username').fill('page-user');
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Username').fill('page-user');
    await page.getByLabel('Password').fill('page-password-1');
    const code = await codeFrom(page, () => page.getByRole('button', { name: 'Sign in' }).click());
    assert.ok(code.length > 10, 'a code for the client');
    await page.context().close();
  });

  it('enrolls TOTP in the browser: QR code and secret, recovery codes confirmed before they count, then the code', async () => {
    const page = await newPage(browser, { baseURL: ctl.baseUrl });
    await page.goto(authorizeUrl('s3'));
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await accessible(page, 'login');
    await page.getByLabel('Username').fill('totp-user');
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await accessible(page, 'login-refused');
    await page.getByLabel('Username').fill('totp-user');
    await page.getByLabel('Password').fill('totp-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Enter your authentication code' }).waitFor();
    await accessible(page, 'login-totp');
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await page.getByRole('heading', { name: 'Set up your authenticator app' }).waitFor();
    assert.match((await page.getByRole('img', { name: /QR code/ }).getAttribute('src')) ?? '', /^data:image\/svg\+xml;base64,/);
    const secret = (await page.locator('#secret').textContent())!.trim();
    const codes = await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').allTextContents();
    assert.equal(codes.length >= 5, true, codes.join(','));
    const download = await page.getByRole('link', { name: /Download the codes/ }).getAttribute('href');
    assert.ok(decodeURIComponent(download ?? '').includes(codes[0]!), 'the download holds the codes');
    await accessible(page, 'login-totp-enroll');
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });

    // Without the confirmation the code is not taken: the browser holds the form back (the box is required), and the
    // controller refuses it too, showing the same enrollment again.
    await page.getByLabel('Authentication code or recovery code').fill(totp.generate());
    await page.getByRole('button', { name: 'Confirm and continue' }).click();
    assert.equal(await page.locator('#saved:invalid').count(), 1, 'the unchecked box holds the form back');
    await page.getByRole('heading', { name: 'Set up your authenticator app' }).waitFor();
    const id = (await page.locator('input[name=authRequestId]').first().getAttribute('value'))!;
    const unconfirmed = await ctl.fetch('/oidc/login/totp/enroll/verify', {
      method: 'POST',
      headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ authRequestId: id, code: totp.generate() }).toString(),
    });
    assert.equal(unconfirmed.status, 400);
    assert.match(unconfirmed.text, /Confirm that you saved the recovery codes first/);
    assert.ok(unconfirmed.text.includes(secret), 'the same enrollment, shown again');
    await page.getByLabel('I have saved these recovery codes').check();
    await page.getByLabel('Authentication code or recovery code').fill(totp.generate());
    const code = await codeFrom(page, () => page.getByRole('button', { name: 'Confirm and continue' }).click());
    assert.ok(code.length > 10);
    await page.context().close();

    // The next sign-in asks for the code; a recovery code, letters and all, is accepted in the same field.
    const next = await newPage(browser, { baseURL: ctl.baseUrl });
    await next.goto(authorizeUrl('s4'));
    await next.getByLabel('Username').fill('totp-user');
    await next.getByLabel('Password').fill('totp-password-1');
    await next.getByRole('button', { name: 'Sign in' }).click();
    const field = next.getByLabel('Authentication code or recovery code');
    assert.equal(await field.getAttribute('inputmode'), null, 'no numeric-only keyboard: recovery codes have letters');
    await field.fill(codes.find((c) => /[A-Z]/.test(c)) ?? codes[0]!);
    const again = await codeFrom(next, () => next.getByRole('button', { name: 'Continue' }).click());
    assert.ok(again.length > 10);
    await next.context().close();
  });
});
