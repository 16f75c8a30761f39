/**
 * Beside console-pages.ts (signing in, the accessibility assertion): a small Management API client for the console's
 * browser tests (ctl.fetch with the admin's session) to set a network up and read back what a screen changed, and
 * the accessibility check with the screen's screenshot in one step.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { screenshot } from './browser.js';
import { assertAccessible } from './console-pages.js';
import type { TestController } from './controller.js';

// Signing in lives in console-pages.ts; tests that import it from here keep working.
export { CONSOLE_ADMIN, signInToConsole } from './console-pages.js';

export interface AdminApi {
  /** Creates an entity; fails the test unless the API answers 201. Returns the new id. */
  create(collection: string, body: object): Promise<string>;
  /** GET under the Management API; fails the test unless the API answers 200. */
  read<T = any>(path: string): Promise<T>;
  /** The entities of a collection whose name is `name` (0 or 1). */
  named<T = any>(collection: string, name: string): Promise<T[]>;
}

export async function adminApi(ctl: TestController): Promise<AdminApi> {
  const token = await ctl.adminToken();
  const headers = { 'svc-session': token };
  const read = async (path: string) => {
    const answer = await ctl.fetch(`/edge/management/v1${path}`, { headers });
    assert.equal(answer.status, 200, answer.text);
    return answer.json().data;
  };
  return {
    async create(collection, body) {
      const answer = await ctl.fetch(`/edge/management/v1${collection}`, { method: 'POST', headers, body });
      assert.equal(answer.status, 201, answer.text);
      return answer.json().data.id as string;
    },
    read,
    named: (collection, name) => read(`${collection}?filter=${encodeURIComponent(`name = "${name}"`)}&limit=10`),
  };
}

/** No serious or critical axe-core violation on the page as it is; then its screenshot (under npm run screenshots). */
export async function accessible(page: Page, name: string): Promise<void> {
  await assertAccessible(page);
  await screenshot(page, name);
}

/** Drops every console draft in the page's session storage: a test that stopped half-way leaves none for the next. */
export async function clearConsoleDrafts(page: Page): Promise<void> {
  await page.evaluate(() => {
    const storage = (globalThis as any).sessionStorage;
    for (const key of Object.keys(storage)) if (key.startsWith('svc.console.draft.')) storage.removeItem(key);
  });
}
