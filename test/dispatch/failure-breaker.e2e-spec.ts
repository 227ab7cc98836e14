import { stripeEndpoint, WebhookAdmin } from 'nestjs-payment-webhooks';
import type { WebhookAlert } from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { parkedByPause } from '../support/inbox-state';
import { WebhookEventEntity } from '../support/internals';
import { signedStripeEvent, stripeEventId } from '../support/stripe-event';
import { countEffects, Database, eventually, startTestApp, TestApp } from '../support/test-app';

/**
 * `dispatch.pauseAfterFailures`: a handler that fails that many attempts in a row is paused,
 * with an alert naming the command that resumes it; its events wait with their attempts left,
 * and run once it is resumed.
 */

const SECRET = 'whsec_failure_breaker';

describe.each<Database>(['sqlite', 'postgres'])('pauseAfterFailures on %s', (database) => {
  let app: TestApp;
  const alerts: WebhookAlert[] = [];

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database,
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: {
          pollIntervalMs: 20,
          // NOTE: the pause is written as the third attempt settles; a retry due sooner than that
          // write could start a fourth attempt first.
          retry: { maxAttempts: 10, baseDelayMs: 150, maxDelayMs: 150 },
          pauseAfterFailures: 3,
        },
        observability: { alerts: { onAlert: (alert) => void alerts.push(alert) } },
      },
    });
  });

  afterAll(() => app.close());

  it('pauses the handler after three failed attempts in a row, and its event waits with seven left', async () => {
    const admin = app.app.get(WebhookAdmin);
    const id = stripeEventId();
    const event = signedStripeEvent(SECRET, {
      id,
      orderId: `o-${id}`,
      amount: 500,
      currency: 'eur',
    });
    app.control.scripts.set(event.id, { alwaysFail: true });
    expect((await post(`${app.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(200);

    await eventually(async () => (await admin.pauses()).length === 1);
    expect(await admin.pauses()).toEqual([
      expect.objectContaining({
        endpoint: 'stripe',
        handler: 'TestPaymentHandlers.onPayment',
        pausedBy: 'circuit-breaker',
        reason: expect.stringMatching(
          /^3 failed attempts in a row; the last: .*handler failure on attempt 3/,
        ),
      }),
    ]);
    const paused = alerts.find((alert) => alert.kind === 'dispatch_paused');
    expect(paused).toMatchObject({ handler: 'TestPaymentHandlers.onPayment', failures: 3 });
    expect(paused!.message).toContain(
      'resume --endpoint stripe --handler TestPaymentHandlers.onPayment',
    );

    // It waits: its retry, due 150 ms after the third attempt, finds the pause and is given back
    // with its attempt not counted; no fourth attempt, not dead.
    await eventually(() => parkedByPause(app.dataSource, event.id));
    const row = await app.dataSource
      .getRepository(WebhookEventEntity)
      .findOneByOrFail({ eventId: event.id });
    expect(row.status).toBe('retrying');
    expect(app.control.calls.filter((call) => call.eventId === event.id)).toHaveLength(3);

    app.control.scripts.delete(event.id);
    expect(
      await admin.resume({ endpoint: 'stripe', handler: 'TestPaymentHandlers.onPayment' }),
    ).toBe(1);
    await eventually(async () => (await countEffects(app, event.id)) === 1);
    expect(
      app.control.calls.filter((call) => call.eventId === event.id).map((call) => call.attempt),
    ).toEqual([1, 2, 3, 4]);
  });
});
