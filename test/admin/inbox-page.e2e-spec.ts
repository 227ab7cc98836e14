import { existsSync, mkdirSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { stripeEndpoint } from 'nestjs-payment-webhooks';
import { Browser, BrowserContext, chromium, Page } from 'playwright-core';
import { FakeStripeEvents } from '../support/fake-stripe-events';
import { post } from '../support/http';
import { INBOX_PAGE_MODULES } from '../support/internals';
import {
  SignedStripeEvent,
  signedStripeEvent,
  stripeEventId,
  stripePaymentEvent,
} from '../support/stripe-event';
import { countEffects, eventually } from '../support/test-app';
import { AdminOpsApp, nestOpsApp, routerOpsApp, SECRET, TOKEN } from './admin-operations.apps';

/**
 * The inbox page in a real browser (Debian's Chromium, headless), on the Nest admin controller
 * over SQLite and on the Express admin router over PostgreSQL: an operator sees a dead group,
 * replays it after the dry run, reads an event's timeline, pauses and resumes, recovers the
 * events of an outage from Stripe's event log (a fake of it); the page's own security (CSP, the admin authorization, cross-site writes refused). INBOX_SCREENSHOTS=1 saves
 * the screenshots of docs/operations.md to docs/images/.
 */

const CHROMIUM = '/usr/bin/chromium';
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
const SCREENSHOTS = process.env.INBOX_SCREENSHOTS === '1';
const IMAGES = join(__dirname, '..', '..', 'docs', 'images');
const OPERATOR = encodeURIComponent(JSON.stringify({ username: 'oncall@shop' }));

let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the inbox page spec drives Debian's Chromium; install it with ` +
        '`apt-get install -y chromium`',
    );
  }
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
}, 60_000);

afterAll(() => browser?.close());

/**
 * A page signed in as the operator: every request carries the admin token, as a proxy would.
 * `requests` records the URL of every request the page makes.
 */
async function operatorPage(): Promise<{
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

/** The page's modules among the URLs requested: each once, from the page's own folder. */
function modulesRequested(requests: string[], admin: string): string[] {
  return requests
    .filter((url) => url.endsWith('.js'))
    .map((url) => url.replace(`${admin}/inbox/`, ''))
    .sort();
}

/** Checks `see` on the page, clicking Refresh between tries, until it holds. */
async function seeAfterRefresh(page: Page, see: () => Promise<boolean>): Promise<void> {
  await eventually(async () => {
    if (await see()) return true;
    await page.click('#refresh');
    await page.waitForTimeout(200);
    return false;
  }, 20_000);
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

    const { context, page, problems, requests } = await operatorPage();
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
    const { context, page, problems, requests } = await operatorPage();
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
    const { context, page } = await operatorPage();
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

describe('recoveries on the inbox page (the Nest admin controller on SQLite)', () => {
  let api: FakeStripeEvents;
  let app: AdminOpsApp;

  beforeAll(async () => {
    api = await FakeStripeEvents.start();
    app = await nestOpsApp('express', 'sqlite', {
      endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET, api: api.api() })],
    });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await api?.close();
  });

  /** Fills the recovery form and confirms it, as an operator does. */
  async function recover(page: Page, endpoint: string, since: string, dryRun: boolean) {
    await page.fill('#recovery-form input[name=endpoint]', endpoint);
    await page.fill('#recovery-form input[name=since]', since);
    await page.setChecked('#recovery-form input[name=dryRun]', dryRun);
    await page.click('#recovery-form button[type=submit]');
    await page.locator('#confirm').waitFor();
    const title = await page.textContent('#confirm-title');
    await page.click('#confirm-ok');
    return title;
  }

  it('counts the missing events in a dry run, then recovers them; a refusal shows as text', async () => {
    // Six payments in the last hour; only two of their deliveries arrived.
    const now = Math.floor(Date.now() / 1000);
    const events = Array.from({ length: 6 }, (_, n) =>
      stripePaymentEvent(SECRET, { id: stripeEventId(), created: now - 1800 + n }),
    );
    api.add(...events.map((event) => JSON.parse(event.body) as Record<string, unknown>));
    for (const event of events.slice(0, 2)) {
      expect((await post(app.webhooks, event.body, event.headers())).status).toBe(200);
    }

    const { context, page, problems } = await operatorPage();
    await page.goto(`${app.admin}/inbox`);
    await page.locator('#recoveries-empty').waitFor();
    // The endpoint is offered from what the page knows: the endpoints with stored events.
    const offered = await page.locator('#recovery-endpoints option').all();
    expect(await Promise.all(offered.map((option) => option.getAttribute('value')))).toEqual([
      'stripe',
    ]);

    // Refused: the route's reason shows in the status line as text, never as markup.
    const markup = '<img src=x onerror="document.title=1">';
    await recover(page, markup, '2h', true);
    await page.locator('#status.error').waitFor();
    expect(await page.textContent('#status')).toBe(
      `400: Cannot recover the events of "${markup}": there is no endpoint "${markup}" in this app.`,
    );
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.title()).toBe('Webhook inbox');
    await recover(page, 'stripe', '60d', true);
    await page.locator('#status', { hasText: 'keeps 30 days of events' }).waitFor();
    expect(await page.textContent('#status')).toMatch(
      /^400: Cannot recover the events of "stripe": .* keeps 30 days of events: start the window at /,
    );

    // The dry run counts the four the inbox lacks, and stores nothing.
    expect(await recover(page, 'stripe', '2h', true)).toBe(
      'Count the events of stripe since 2h the inbox lacks?',
    );
    const dryRun = page.locator('#recoveries-body tr', { hasText: 'done (dry run)' });
    await dryRun.waitFor();
    expect(await dryRun.locator('td').allTextContents()).toEqual([
      'stripe',
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d to \d{4}-/),
      'done (dry run)',
      '6 read, 4 missing',
      'oncall@shop',
      expect.stringMatching(/ago$/),
      '',
      '',
    ]);
    await page.locator('#status', { hasText: 'Dry run done: 6 read, 4 missing' }).waitFor();
    expect(await countEffects(app, events[5].id)).toBe(0);

    // The recovery stores them; their handlers run once, and the page lists them processed.
    expect(await recover(page, 'stripe', '2h', false)).toBe(
      'Recover the events of stripe since 2h?',
    );
    const recovery = page.locator('#recoveries-body tr', { hasText: '6 read, 4 stored' });
    await recovery.waitFor();
    expect(await recovery.locator('td').nth(2).textContent()).toBe('done');
    await page.locator('#status', { hasText: 'Recovery done: 6 read, 4 stored' }).waitFor();
    for (const event of events) {
      await eventually(async () => (await countEffects(app, event.id)) === 1, 20_000);
    }
    await seeAfterRefresh(
      page,
      async () => (await page.locator('#events-body .status-processed').count()) === 6,
    );

    // A recovery the provider is slow to answer runs on: canceled from its row, it stops.
    api.delayMs = 3000;
    await recover(page, 'stripe', '1h', false);
    const running = page.locator('#recoveries-body tr', { hasText: 'running' });
    await running.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.textContent('#confirm-title')).toBe('Cancel the recovery of stripe?');
    await page.click('#confirm-ok');
    await page.locator('#recoveries-body tr', { hasText: 'canceled' }).waitFor();
    expect(await page.locator('#recoveries-body button').count()).toBe(0);
    api.delayMs = 0;
    expect(problems.filter((problem) => !problem.includes('status of 400'))).toEqual([]);
    await context.close();
  }, 90_000);
});
