import { existsSync } from 'node:fs';
import { Browser, BrowserContext, chromium, Page } from 'playwright-core';
import { eventually } from '../support/test-app';
import { TOKEN } from './admin-operations.apps';

/**
 * The browser the inbox page specs drive (Debian's Chromium, headless) and the operator's page
 * in it, signed in as a proxy in front of the admin routes would sign it in.
 */

const CHROMIUM = '/usr/bin/chromium';
const OPERATOR = encodeURIComponent(JSON.stringify({ username: 'oncall@shop' }));

/** Starts Chromium headless; a machine without it fails with how to install it. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the inbox page specs drive Debian's Chromium; install it with ` +
        '`apt-get install -y chromium`',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true });
}

/**
 * A page signed in as the operator `oncall@shop`: every request carries the admin token, as a
 * proxy would. `problems` collects the page's errors, `requests` the URL of every request.
 */
export async function operatorPage(browser: Browser): Promise<{
  context: BrowserContext;
  page: Page;
  problems: string[];
  requests: string[];
}> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 860 },
    extraHTTPHeaders: { 'x-admin-token': TOKEN, 'x-user': OPERATOR },
  });
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('request', (request) => requests.push(request.url()));
  return { context, page, problems, requests };
}

/** Checks `see` on the page, clicking Refresh between tries, until it holds. */
export async function seeAfterRefresh(page: Page, see: () => Promise<boolean>): Promise<void> {
  await eventually(async () => {
    if (await see()) return true;
    await page.click('#refresh');
    await page.waitForTimeout(200);
    return false;
  }, 20_000);
}
