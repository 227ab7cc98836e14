import { stripeEndpoint } from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import { signedStripeEvent } from '../support/stripe-event';
import { Database, eventually, startTestApp, TestApp, TestEffect } from '../support/test-app';

/**
 * A handler that always fails runs exactly `maxAttempts` times, and the event is `dead` after
 * the last of them: not one attempt early, not one late.
 */

const SECRET = 'whsec_dead_after_max_attempts';
const MAX_ATTEMPTS = 3;

describe.each<Database>(['sqlite', 'postgres'])('the last attempt on %s', (database) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database,
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: {
          pollIntervalMs: 20,
          retry: { maxAttempts: MAX_ATTEMPTS, baseDelayMs: 10, maxDelayMs: 20 },
        },
      },
    });
  });

  afterAll(() => app.close());

  it(`is attempt ${MAX_ATTEMPTS} of maxAttempts ${MAX_ATTEMPTS}: the handler ran that many times and the event is dead`, async () => {
    const event = signedStripeEvent(SECRET);
    app.control.scripts.set(event.id, { alwaysFail: true });
    expect((await post(`${app.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(200);

    const events = app.dataSource.getRepository(WebhookEventEntity);
    await eventually(
      async () => (await events.findOneBy({ eventId: event.id }))?.status === 'dead',
    );
    // NOTE: a dead event is never claimed again; the wait lets a wrongly scheduled retry show.
    await new Promise((resolve) => setTimeout(resolve, 300));

    const row = await events.findOneByOrFail({ eventId: event.id });
    expect(row).toMatchObject({ status: 'dead', attempts: MAX_ATTEMPTS, nextAttemptAt: null });
    expect(row.lastError).toContain(`handler failure on attempt ${MAX_ATTEMPTS}`);
    const runs = app.control.calls.filter((call) => call.eventId === event.id);
    expect(runs.map((call) => call.attempt)).toEqual([1, 2, 3]);
    // Each failed attempt rolled its effect back with it.
    expect(await app.dataSource.getRepository(TestEffect).countBy({ eventId: event.id })).toBe(0);
  });
});
