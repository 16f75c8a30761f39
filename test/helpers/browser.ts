/**
 * A real browser for the console and login-page tests: Debian's Chromium (/usr/bin/chromium, installed by .ci/run)
 * driven by playwright-core, which never downloads a browser of its own. Also the accessibility check (axe-core run
 * inside the page) and the screenshots kept under docs/screenshots/ (written only when SVC_SCREENSHOTS=1, which
 * `npm run screenshots` sets, so an ordinary test run leaves the tree as it was).
 */
import { mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Flags for a closed network and a root user: no sandbox (root), and none of Chromium's own background connections
 * (updates, sync, safe browsing), which this machine refuses and which would otherwise be retried throughout a test.
 */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-dev-shm-usage',
];

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS });
}

export interface NewPageOptions extends BrowserContextOptions {
  /** The controller's `https://127.0.0.1:<port>`. */
  baseURL: string;
}

/**
 * A page in a fresh context (its own cookies and storage). The controller's TLS is real but its CA is not one the
 * browser knows, so certificate errors are ignored for loopback only: the tests are about pages, not trust.
 */
export async function newPage(browser: Browser, options: NewPageOptions): Promise<Page> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 }, ...options });
  const page = await context.newPage();
  // What went wrong in the page, kept for a failing step's message (a step that times out says only what it awaited).
  const trouble: string[] = [];
  troubleOf.set(page, trouble);
  const note = (line: string) => trouble.length < 20 && trouble.push(line);
  page.on('pageerror', (error) => note(`page error: ${error.message}`));
  page.on('console', (message) => message.type() === 'error' && note(`console error: ${message.text()}`));
  page.on('requestfailed', (request) => note(`request failed: ${request.method()} ${request.url()}: ${request.failure()?.errorText ?? ''}`));
  page.on('response', (response) => response.status() >= 400 && note(`${response.status()} for ${response.request().method()} ${response.url()}`));
  return page;
}

const troubleOf = new WeakMap<Page, string[]>();

/** `error` with the page's address and what went wrong in it since it opened (page errors, failed or refused requests). */
export function withPageTrouble(page: Page, error: unknown): Error {
  const lines = troubleOf.get(page) ?? [];
  const message = `${error instanceof Error ? error.message : String(error)}\nthe page was at ${page.url()}${lines.length > 0 ? `; what went wrong in it:\n${lines.join('\n')}` : '; nothing went wrong in it that it reported'}`;
  return Object.assign(new Error(message), { cause: error });
}

export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

const require = createRequire(import.meta.url);
let axeSource: string | undefined;

/**
 * Runs axe-core (WCAG 2 A and AA rules) in the page and returns the serious and critical violations, each with the
 * elements it found, so an assertion's message says what to fix. axe is injected through Playwright rather than a
 * <script> of the page, which the console's Content-Security-Policy would rightly refuse.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = (await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: unknown[] }> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations;
  })) as AxeViolation[];
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** The violations as lines a failing assertion can print. */
export const describeViolations = (violations: AxeViolation[]) =>
  violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`).join('\n');

// The checkout's docs/, also from the compiled suite, whose package.json is a link to the checkout's (scripts/test/compile.mjs).
const checkout = dirname(realpathSync(fileURLToPath(new URL('../../package.json', import.meta.url))));
const SCREENSHOT_DIR = join(checkout, 'docs', 'screenshots');

/** Saves docs/screenshots/NAME.png when SVC_SCREENSHOTS=1 (`npm run screenshots`); otherwise does nothing. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.SVC_SCREENSHOTS !== '1') return;
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`screenshot name '${name}': use lower-case letters, digits and dashes`);
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}
