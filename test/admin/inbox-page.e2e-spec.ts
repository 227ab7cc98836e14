import { mkdirSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Browser } from 'playwright-core';
import { post } from '../support/http';
import { INBOX_PAGE_MODULES } from '../support/internals';
import { SignedStripeEvent, signedStripeEvent, stripeEventId } from '../support/stripe-event';
import { eventually } from '../support/test-app';
import { AdminOpsApp, nestOpsApp, routerOpsApp, SECRET, TOKEN } from './admin-operations.apps';
import { launchChromium, operatorPage, seeAfterRefresh } from './inbox-browser';

/**
 * The inbox page in a real browser (Debian's Chromium, headless), on the Nest admin controller
 * over SQLite and on the Express admin router over PostgreSQL: an operator sees a dead group,
 * replays it after the dry run, reads an event's timeline, pauses and resumes; the page's own
 * security (CSP, the admin authorization, cross-site writes refused). INBOX_SCREENSHOTS=1 saves
 * the screenshots of docs/operations.md to docs/images/.
 */

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
const SCREENSHOTS = process.env.INBOX_SCREENSHOTS === '1';
const IMAGES = join(__dirname, '..', '..', 'docs', 'images');

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);

afterAll(() => browser?.close());

/** The page's modules among the URLs requested: each once, from the page's own folder. */
function modulesRequested(requests: string[], admin: string): string[] {
  return requests
    .filter((url) => url.endsWith('.js'))
    .map((url) => url.replace(`${admin}/inbox/`, ''))
    .sort();
}

/** A page on another site (`localhost` rather than `127.0.0.1`) that tries to pause dispatch. */
async function crossSitePage(): Promise<{ url: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.setHeader('content-type', 'text/html');
    response.end('<!doctype html><title>elsewhere</title><p>hello</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://localhost:${(server.address() as AddressInfo).port}/`, server };
}

describe.each([
  ['the Nest admin controller on SQLite', () => nestOpsApp('express', 'sqlite'), true],
  ['the Express admin router on PostgreSQL', () => routerOpsApp('postgres', true), false],
] as const)('the inbox page on %s', (_name, start, screenshots) => {
  let app: AdminOpsApp;

  beforeAll(async () => {
    app = await start();
  }, 60_000);

  afterAll(() => app?.close());

  async function send(event: SignedStripeEvent, headers = event.headers): Promise<number> {
    return (await post(app.webhooks, event.body, headers)).status;
  }

  function delivery(orderId?: string): SignedStripeEvent {
    const id = stripeEventId();
    return signedStripeEvent(SECRET, {
      id,
      orderId: orderId ?? `order-${id}`,
      amount: 4200,
      currency: 'eur',
    });
  }

  async function events(query: string): Promise<{ status: string }[]> {
    const response = await fetch(`${app.admin}/events?${query}`, {
      headers: { 'x-admin-token': TOKEN },
    });
    return (await response.json()) as { status: string }[];
  }

  async function deadEvents(): Promise<number> {
    return (await events('status=dead')).length;
  }

  async function statusOf(event: SignedStripeEvent): Promise<string | undefined> {
    return (await events(`eventId=${encodeURIComponent(event.id)}`))[0]?.status;
  }

  it('replays a dead group after its dry run, and shows the handler runs in the timeline', async () => {
    const failing = [delivery(), delivery(), delivery()];
    const poisoned = [delivery(), delivery()];
    failing.forEach((event) => app.control.scripts.set(event.id, { alwaysFail: true }));
    poisoned.forEach((event) => app.control.scripts.set(event.id, { nonRetryable: true }));
    const markup = '<img src=x onerror="document.title=1">';
    const fine = [delivery(), delivery(), delivery(), delivery(markup)];
    for (const event of [...failing, ...poisoned, ...fine]) {
      expect(await send(event)).toBe(200);
    }
    expect(await send(fine[0])).toBe(200); // a duplicate
    expect(await send(fine[1], { 'stripe-signature': 't=1,v1=00' })).toBe(400);
    await eventually(async () => (await deadEvents()) === 5, 20_000);

    const { context, page, problems, requests } = await operatorPage(browser);
    const response = await page.goto(`${app.admin}/inbox`);
    expect(response!.status()).toBe(200);
    expect(response!.headers()).toMatchObject({
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
    expect(response!.headers()['content-type']).toMatch(/^text\/html/);

    // The dead group, its error's first line, and the charts drawn from this process's activity.
    const group = page.locator('#groups-body tr', { hasText: 'handler failure on attempt 2' });
    await group.waitFor();
    expect(await group.locator('td').nth(0).textContent()).toBe('3');
    expect(await group.locator('td').nth(1).textContent()).toBe('3');
    expect(await group.locator('td').nth(3).textContent()).toBe(app.handlers.payments);
    await page.locator('#deliveries-chart rect.bar').first().waitFor();
    expect(await page.locator('#latency-chart circle.dot').count()).toBeGreaterThan(0);
    expect(await page.textContent('#activity-scope')).toContain('per process');
    // Every module of the page loaded as it is, under the page's CSP.
    expect(modulesRequested(requests, app.admin)).toEqual([...INBOX_PAGE_MODULES].sort());

    // Fixed: replay the group, seeing first how many events the replay puts back.
    failing.forEach((event) => app.control.scripts.delete(event.id));
    await page.locator('#groups').scrollIntoViewIfNeeded();
    await group.getByRole('button', { name: 'Replay' }).click();
    const dialog = page.locator('#confirm');
    await dialog.waitFor();
    expect(await page.textContent('#confirm-title')).toBe('Replay 3 events?');
    expect(await page.locator('#confirm-sample li').count()).toBe(3);
    if (screenshots && SCREENSHOTS) {
      mkdirSync(IMAGES, { recursive: true });
      await page.screenshot({ path: join(IMAGES, 'inbox-replay-confirmation.png') });
    }
    await page.click('#confirm-ok');
    await seeAfterRefresh(
      page,
      async () =>
        (await page.locator('#events-body .status-processed').count()) === 7 &&
        (await group.count()) === 0,
    );
    expect(await page.locator('#groups-body tr').count()).toBe(1); // the poisoned ones are left

    // One of them: its failed attempts, the replay with its actor, then its handler run.
    const beforeOpening = requests.length;
    const opened = page.waitForResponse((answer) => answer.url().includes('/events/'));
    await page.locator(`#events-body tr`, { hasText: failing[0].id }).click();
    const openedEvent = ((await (await opened).json()) as { event: Record<string, unknown> }).event;
    const timeline = page.locator('#timeline');
    await timeline.getByText(`Handler ${app.handlers.payments} succeeded`).waitFor();
    const entries = await timeline.locator('li strong').allTextContents();
    expect(entries).toEqual([
      'Received; delivered 1 time by the provider',
      `Attempt 1 failed in ${app.handlers.payments}: retrying`,
      `Attempt 2 failed in ${app.handlers.payments}: dead`,
      'Replayed by oncall@shop, from dead',
      `Handler ${app.handlers.payments} succeeded on attempt 1`,
      'Processed',
    ]);
    const error = await timeline.locator('pre.error-text').first().textContent();
    expect(error!.split('\n')[0]).toBe('Error: handler failure on attempt 1');
    expect(error!.split('\n')[1]).toMatch(/^ {4}at /);
    // The payload only on demand: opening the event did not ask for it, nor did it come.
    const eventRequests = requests.slice(beforeOpening).filter((url) => url.includes('/events/'));
    expect(eventRequests).toEqual([`${app.admin}/events/${String(openedEvent.id)}`]);
    expect(openedEvent).not.toHaveProperty('rawBody');
    expect(openedEvent).not.toHaveProperty('headers');
    expect(await page.locator('#payload').isHidden()).toBe(true);
    expect(await page.textContent('#payload-body')).toBe('');
    if (screenshots && SCREENSHOTS) {
      await page.locator('#event').screenshot({ path: join(IMAGES, 'inbox-timeline.png') });
    }
    const body = page.waitForResponse((answer) => answer.url().includes('/events/'));
    await page.click('#show-body');
    expect((await body).url()).toBe(`${app.admin}/events/${String(openedEvent.id)}?include=body`);
    expect((await body).status()).toBe(200);
    // NOTE: the answer is in before the page has put it in; wait for the page to show it.
    await page.locator('#payload-body', { hasText: failing[0].id }).waitFor();
    expect(await page.textContent('#payload-body')).toBe(failing[0].body);
    expect(await page.locator('#payload-headers tr', { hasText: 'content-type' }).count()).toBe(1);

    // Search by provider event id; what the provider sent shows as text, never as markup.
    await page.fill('#search-form input[name=search]', fine[3].id);
    await page.click('#search-form button[type=submit]');
    await page.locator('#event-title', { hasText: fine[3].id }).waitFor();
    expect(await page.locator('#event-facts dd', { hasText: markup }).count()).toBe(1);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.title()).toBe('Webhook inbox');

    if (screenshots && SCREENSHOTS) {
      await page.fill('#filter-form input[name=since]', '1h');
      await page.click('#filter-form button[type=submit]');
      await page.locator('#event-close').click();
      await page.locator('#events').screenshot({ path: join(IMAGES, 'inbox-events.png') });
    }
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  it('pauses and resumes an endpoint from the page', async () => {
    const { context, page, problems, requests } = await operatorPage(browser);
    await page.goto(`${app.admin}/inbox/`);
    await page.locator('#pauses-empty').waitFor();
    expect(modulesRequested(requests, app.admin)).toEqual([...INBOX_PAGE_MODULES].sort());
    await page.fill('#pause-form input[name=endpoint]', 'stripe');
    await page.click('#pause-form button[type=submit]');
    await page.locator('#confirm').waitFor();
    expect(await page.textContent('#confirm-title')).toBe(
      'Pause handler (every) on endpoint stripe?',
    );
    await page.fill('#confirm-reason', 'ERP maintenance');
    await page.click('#confirm-ok');
    const pause = page.locator('#pauses-body tr', { hasText: 'ERP maintenance' });
    await pause.waitFor();
    expect(await pause.locator('td').allTextContents()).toEqual([
      'stripe',
      '(every)',
      expect.stringMatching(/ago$/),
      'oncall@shop',
      'ERP maintenance',
      'Resume',
    ]);

    // Held: delivered and answered, not run.
    const held = delivery();
    expect(await send(held)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await statusOf(held)).toBe('pending');
    // The page says of it what the CLI says: held by the pause, its amount in minor units.
    await seeAfterRefresh(page, async () => {
      await page.fill('#search-form input[name=search]', held.id);
      await page.click('#search-form button[type=submit]');
      await page.locator('#event-title', { hasText: held.id }).waitFor();
      return (await page.locator('#event-facts dd', { hasText: 'pending (paused)' }).count()) === 1;
    });
    expect(await page.locator('#event-facts dd').allTextContents()).toEqual(
      expect.arrayContaining([
        'when dispatch is resumed',
        expect.stringMatching(/^4200 EUR \(minor units\)$/i),
      ]),
    );
    // Each chart's "now", at its right edge, is drawn inside the chart.
    const plots = page.locator('svg.plot');
    expect(await plots.count()).toBeGreaterThan(0);
    for (const plot of await plots.all()) {
      const chart = (await plot.boundingBox())!;
      const now = (await plot.locator('text', { hasText: /^now$/ }).boundingBox())!;
      expect(now.x + now.width).toBeLessThanOrEqual(chart.x + chart.width + 0.5);
    }
    await pause.getByRole('button', { name: 'Resume' }).click();
    await page.click('#confirm-ok');
    await page.locator('#pauses-empty').waitFor();
    expect(await page.locator('#pauses-body tr').count()).toBe(0);
    await eventually(async () => (await statusOf(held)) === 'processed', 10_000);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('serves nothing without the admin authorization', async () => {
    const modules = INBOX_PAGE_MODULES.map((file) => `inbox/${file}`);
    for (const path of ['inbox', ...modules, 'inbox/inbox.css', 'activity']) {
      const response = await fetch(`${app.admin}/${path}`);
      const text = await response.text();
      expect({ path, status: response.status }).toEqual({ path, status: 403 });
      expect(text).not.toMatch(/<script|<html|@ts-check|import /i);
    }
    for (const path of modules) {
      const script = await fetch(`${app.admin}/${path}`, { headers: { 'x-admin-token': TOKEN } });
      expect({ path, status: script.status }).toEqual({ path, status: 200 });
      expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect(script.headers.get('content-security-policy')).toBe(CSP);
    }
    // Nothing else of the page's folder, nor any other name, is served.
    for (const path of ['inbox/nothing.js', 'inbox/tsconfig.json', 'inbox/inbox.html']) {
      const response = await fetch(`${app.admin}/${path}`, { headers: { 'x-admin-token': TOKEN } });
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(response.headers.get('content-type')).not.toMatch(/^text\/javascript/);
    }
  });

  it("refuses a pause another site's page sends with the operator's credentials", async () => {
    const elsewhere = await crossSitePage();
    const { context, page } = await operatorPage(browser);
    try {
      await page.goto(elsewhere.url);
      const refused = page.waitForResponse((answer) => answer.url().endsWith('/pause'));
      await page.evaluate(async (target) => {
        await fetch(target, {
          method: 'POST',
          mode: 'no-cors',
          headers: { 'content-type': 'text/plain' },
          body: '{"endpoint":"stripe"}',
        });
      }, `${app.admin}/pause`);
      expect((await refused).status()).toBe(403);
      const pauses = await fetch(`${app.admin}/pauses`, { headers: { 'x-admin-token': TOKEN } });
      expect(await pauses.json()).toEqual([]);
    } finally {
      await context.close();
      await new Promise((resolve) => elsewhere.server.close(resolve));
    }
  });
});
