import { Injectable } from '@nestjs/common';
import {
  NonRetryableError,
  OnPaymentEvent,
  PaymentEvent,
  stripeEndpoint,
} from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { RecordingLogger } from '../support/recording-logger';
import { signedStripeEvent } from '../support/stripe-event';
import { Database, eventually, startTestApp, TestApp } from '../support/test-app';

const SECRET = 'whsec_handler_errors_secret';
const SPEC_FILE = 'handler-errors.e2e-spec.ts';

/** What the card gateway says, as a handler's dependency would throw it. */
function chargeCard(orderId: string): never {
  throw new Error(`card declined for ${orderId}`);
}

/** A call chain as deep as an ORM or a retry library makes one, ending in a permanent error. */
function descend(depth: number): never {
  if (depth === 0) {
    throw new NonRetryableError('order can never be fulfilled');
  }
  return descend(depth - 1);
}

@Injectable()
class FailingHandlers {
  @OnPaymentEvent('payment.succeeded')
  async charge(event: PaymentEvent): Promise<void> {
    chargeCard(event.merchantRef!);
  }

  @OnPaymentEvent('payment.canceled')
  async release(): Promise<void> {
    const limit = Error.stackTraceLimit;
    // NOTE: apps raise the limit for long async traces; the stored text must stay bounded anyway.
    Error.stackTraceLimit = Infinity;
    try {
      descend(2000);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}

describe.each<Database>(['sqlite', 'postgres'])('a failing handler on %s', (database) => {
  let t: TestApp;
  const logger = new RecordingLogger();
  const row = async (eventId: string) => {
    const rows = (await t.dataSource.query(
      `SELECT status, last_error FROM webhook_events WHERE event_id = ${database === 'postgres' ? '$1' : '?'}`,
      [eventId],
    )) as { status: string; last_error: string | null }[];
    return rows[0];
  };
  const failureLog = (handler: string) =>
    logger
      .of('WebhookDispatcher', 'warn')
      .map((line) => line.text)
      .filter((text) => text.includes(`handler=${handler} `) && text.includes('outcome=failed'));

  beforeAll(async () => {
    t = await startTestApp({
      platform: 'express',
      database,
      logger,
      handlers: [FailingHandlers],
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: { pollIntervalMs: 100, retry: { maxAttempts: 3, baseDelayMs: 60_000 } },
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("keeps the message first and the handler's frames after it, in last_error and the log", async () => {
    const event = signedStripeEvent(SECRET, { orderId: 'order-declined' });
    expect((await post(`${t.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(200);
    await eventually(async () => (await row(event.id))?.status === 'retrying');
    const lastError = (await row(event.id)).last_error!;
    const [first, ...frames] = lastError.split('\n');
    expect(first).toBe('FailingHandlers.charge: Error: card declined for order-declined');
    expect(frames[0]).toMatch(new RegExp(`^\\s+at chargeCard \\(.*${SPEC_FILE}:\\d+:\\d+\\)$`));
    // NOTE: compiled by swc, the suite's source map names the frame `chargeCard [as charge]`.
    expect(frames[1]).toMatch(
      new RegExp(`^\\s+at FailingHandlers\\.(charge|\\w+ \\[as charge\\]) \\(.*${SPEC_FILE}:`),
    );
    await eventually(() => failureLog('FailingHandlers.charge').length > 0);
    const [logged] = failureLog('FailingHandlers.charge');
    expect(logged).toContain('card declined for order-declined');
    expect(logged).toContain(`at chargeCard (`);
    expect(logged).toContain(SPEC_FILE);
  });

  it('bounds the stack of a deep call chain, in frames and in length', async () => {
    const event = signedStripeEvent(SECRET, { type: 'payment_intent.canceled' });
    expect((await post(`${t.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(200);
    await eventually(async () => (await row(event.id))?.status === 'dead');
    const lastError = (await row(event.id)).last_error!;
    const [first, ...frames] = lastError.split('\n');
    expect(first).toBe('FailingHandlers.release: NonRetryableError: order can never be fulfilled');
    expect(frames[0]).toMatch(new RegExp(`at descend \\(.*${SPEC_FILE}:`));
    expect(frames.length).toBeGreaterThanOrEqual(5);
    expect(frames.length).toBeLessThanOrEqual(10);
    expect(lastError.length).toBeLessThanOrEqual(2000);
    await eventually(() => failureLog('FailingHandlers.release').length > 0);
    const [logged] = failureLog('FailingHandlers.release');
    expect(logged).toContain(SPEC_FILE);
    expect(logged.length).toBeLessThan(2600);
  });
});
