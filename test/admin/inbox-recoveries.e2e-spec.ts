import { stripeEndpoint, WebhookEndpoint } from 'nestjs-payment-webhooks';
import { Browser, Page } from 'playwright-core';
import { FakeStripeEvents } from '../support/fake-stripe-events';
import { post } from '../support/http';
import { stripeEventId, stripePaymentEvent } from '../support/stripe-event';
import { countEffects, eventually } from '../support/test-app';
import { AdminOpsApp, nestOpsApp, routerOpsApp, SECRET } from './admin-operations.apps';
import { launchChromium, operatorPage, seeAfterRefresh } from './inbox-browser';

/**
 * The inbox page's Recoveries in a real browser, on the Nest admin controller over SQLite and on
 * the Express admin router over PostgreSQL, with a Stripe endpoint reading a fake of Stripe's
 * event log: an operator counts the events an outage lost in a dry run, recovers them, sees a
 * refusal's reason as text, and cancels a recovery that runs on.
 */

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);

afterAll(() => browser?.close());

describe.each([
  [
    'the Nest admin controller on SQLite',
    (endpoints: WebhookEndpoint[]) => nestOpsApp('express', 'sqlite', { endpoints }),
  ],
  [
    'the Express admin router on PostgreSQL',
    (endpoints: WebhookEndpoint[]) => routerOpsApp('postgres', true, { endpoints }),
  ],
] as const)('recoveries on the inbox page on %s', (_name, start) => {
  let api: FakeStripeEvents;
  let app: AdminOpsApp;

  beforeAll(async () => {
    api = await FakeStripeEvents.start();
    app = await start([stripeEndpoint({ name: 'stripe', secret: SECRET, api: api.api() })]);
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

  it('refuses with the reason as text, counts the missing events in a dry run, recovers them, cancels one', async () => {
    // Six payments in the last hour; only two of their deliveries arrived.
    const now = Math.floor(Date.now() / 1000);
    const events = Array.from({ length: 6 }, (_, n) =>
      stripePaymentEvent(SECRET, { id: stripeEventId(), created: now - 1800 + n }),
    );
    api.add(...events.map((event) => JSON.parse(event.body) as Record<string, unknown>));
    for (const event of events.slice(0, 2)) {
      expect((await post(app.webhooks, event.body, event.headers())).status).toBe(200);
    }

    const { context, page, problems } = await operatorPage(browser);
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
    // NOTE: a page's counts may show before the recovery is marked done: wait for both.
    await page
      .locator('#recoveries-body tr', { hasText: '6 read, 4 stored' })
      .filter({ has: page.locator('td:nth-child(3)', { hasText: /^done$/ }) })
      .waitFor();
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
