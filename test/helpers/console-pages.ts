/**
 * Steps the console's browser tests share: signing in as the default admin through the controller's login page, and
 * asserting that a screen has no serious or critical accessibility violation (with what to fix in the message).
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { describeViolations, seriousAccessibilityViolations, withPageTrouble } from './browser.js';

export const CONSOLE_ADMIN = { username: 'admin', password: 'admin-password' };

/** From the console's sign-in screen: to the login page, the admin's password, and back to the console. */
export async function signInToConsole(page: Page): Promise<void> {
  try {
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Username').fill(CONSOLE_ADMIN.username);
    await page.getByLabel('Password').fill(CONSOLE_ADMIN.password);
    await page.getByRole('button', { name: /log in|sign in/i }).click();
  } catch (error) {
    throw withPageTrouble(page, error);
  }
}

export async function assertAccessible(page: Page): Promise<void> {
  const violations = await seriousAccessibilityViolations(page);
  assert.deepEqual(violations, [], describeViolations(violations));
}
