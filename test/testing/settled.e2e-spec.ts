import { stripeEndpoint } from 'nestjs-payment-webhooks';
import { settled, signStripeDelivery, stripeFixtures } from 'nestjs-payment-webhooks/testing';
import { post } from '../support/http';
import { startRouterApp, RouterTestApp } from '../support/router-app';
import { signedStripeEvent } from '../support/stripe-event';
import { HandlerControl, startTestApp, TestApp } from '../support/test-app';

/**
 * `settled()` of `nestjs-payment-webhooks/testing`: a test sends a delivery, then waits for its
 * handlers without a polling loop of its own, on Nest and on the plain Express router.
 */

const SECRET = 'whsec_settled_secret';
const endpoints = [stripeEndpoint({ name: 'stripe', secret: SECRET })];
const quickRetry = { baseDelayMs: 20, maxDelayMs: 40 } as const;

describe('settled() on a Nest app', () => {
  const control = new HandlerControl();
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      control,
      webhooks: { endpoints, dispatch: { retry: { ...quickRetry, maxAttempts: 3 } } },
    });
  });
  afterAll(() => app.close());

  it('resolves once the handler has run, with the event and its ledger', async () => {
    const delivery = signedStripeEvent(SECRET, { orderId: 'order-1' });
    control.scripts.set(delivery.id, { delayMs: 150 });
    const answer = await post(`${app.url}/webhooks/stripe`, delivery.body, delivery.headers);
    expect(answer.status).toBe(200);

    const { event, handlerRuns } = await settled(app.app, delivery.id);

    expect(event.status).toBe('processed');
    expect(event.eventId).toBe(delivery.id);
    expect(handlerRuns.map((run) => run.handlerKey)).toHaveLength(1);
    expect(control.calls.filter((call) => call.eventId === delivery.id)).toHaveLength(1);
  });

  it('waits for a delivery that is not sent yet', async () => {
    const delivery = signedStripeEvent(SECRET);
    const waiting = settled(app.app, delivery.id);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await post(`${app.url}/webhooks/stripe`, delivery.body, delivery.headers);
    expect((await waiting).event.status).toBe('processed');
  });

  it('resolves with a dead event once its attempts are spent', async () => {
    const delivery = signedStripeEvent(SECRET);
    control.scripts.set(delivery.id, { alwaysFail: true });
    await post(`${app.url}/webhooks/stripe`, delivery.body, delivery.headers);

    const { event } = await settled(app.app, delivery.id);

    expect(event.status).toBe('dead');
    expect(event.attempts).toBe(3);
    expect(event.lastError).toContain('handler failure on attempt 3');
  });

  it('fails after its timeout naming an event that was never stored', async () => {
    await expect(settled(app.app, 'evt_never_sent', { timeoutMs: 50 })).rejects.toThrow(
      'Event evt_never_sent did not settle within 50 ms: no such event is stored.',
    );
  });

  it('refuses what is neither an app, a router nor an admin', async () => {
    await expect(settled({} as never, 'evt_x')).rejects.toThrow(
      'settled() takes the Nest application',
    );
  });
});

describe('settled() on the plain Express router', () => {
  let app: RouterTestApp;
  const control = new HandlerControl();

  afterEach(() => app.close());

  it('resolves once the handler has run', async () => {
    app = await startRouterApp({ database: 'sqlite', control, webhooks: { endpoints } });
    const delivery = signedStripeEvent(SECRET);
    await post(`${app.url}/webhooks/stripe`, delivery.body, delivery.headers);

    const { event, handlerRuns } = await settled(app.router, delivery.id);

    expect(event.status).toBe('processed');
    expect(handlerRuns).toHaveLength(1);
    expect(control.calls.filter((call) => call.eventId === delivery.id)).toHaveLength(1);
  });

  it('takes the delivery a signer built, and refuses one that names no event id', async () => {
    app = await startRouterApp({ database: 'sqlite', control, webhooks: { endpoints } });
    const delivery = signStripeDelivery({
      secret: SECRET,
      type: 'payment_intent.succeeded',
      object: stripeFixtures.paymentIntent('succeeded'),
    });
    await post(`${app.url}/webhooks/stripe`, delivery.body, delivery.headers);

    const { event } = await settled(app.router, delivery);

    expect(event).toMatchObject({ eventId: delivery.eventId, status: 'processed' });
    const { eventId: _named, ...unnamed } = delivery;
    await expect(settled(app.router, unnamed)).rejects.toThrow(
      'settled(): this stripe delivery has no eventId',
    );
  });

  it('says a stored event has no worker when the handlers do not run here', async () => {
    app = await startRouterApp({
      database: 'sqlite',
      webhooks: { endpoints, dispatch: { enabled: false } },
    });
    const delivery = signedStripeEvent(SECRET);
    expect((await post(`${app.url}/webhooks/stripe`, delivery.body, delivery.headers)).status).toBe(
      200,
    );

    await expect(settled(app.router, delivery.id, { timeoutMs: 200 })).rejects.toThrow(
      `Event ${delivery.id} did not settle within 200 ms: it is pending and no worker took it.`,
    );
  });

  it('asks which endpoint when two stored the same event id', async () => {
    app = await startRouterApp({
      database: 'sqlite',
      webhooks: {
        endpoints: [...endpoints, stripeEndpoint({ name: 'stripe-eu', secret: SECRET })],
      },
    });
    const delivery = signedStripeEvent(SECRET);
    for (const endpoint of ['stripe', 'stripe-eu']) {
      await post(`${app.url}/webhooks/${endpoint}`, delivery.body, delivery.headers);
    }

    await expect(settled(app.router, delivery.id)).rejects.toThrow('pass { endpoint }');
    const { event } = await settled(app.router, delivery.id, { endpoint: 'stripe-eu' });
    expect(event.endpoint).toBe('stripe-eu');
  });
});
