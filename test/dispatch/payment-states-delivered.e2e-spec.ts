import { Injectable } from '@nestjs/common';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import {
  OnPaymentEvent,
  PaymentEvent,
  stripeEndpoint,
  WebhookContext,
} from 'nestjs-payment-webhooks';
import {
  applyPaymentEvent,
  definePaymentStates,
  paymentStateTarget,
} from 'nestjs-payment-webhooks/payments';
import { post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import { signedStripeEvent } from '../support/stripe-event';
import { Database, eventually, Platform, startTestApp, TestApp } from '../support/test-app';

const SECRET = 'whsec_payment_states_delivered';

/** The app's own payment row, moved only by the events it receives. */
@Entity({ name: 'order_payments' })
class OrderPayment {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'payment_ref', type: 'varchar', length: 64, unique: true })
  paymentRef!: string;

  @Column({ type: 'varchar', length: 32 })
  status!: string;

  @Column({ name: 'status_changed_at', type: Date, nullable: true })
  statusChangedAt!: Date | null;
}

const ORDER_PAYMENTS_TABLE: Record<Database, string> = {
  postgres:
    'CREATE TABLE order_payments (id varchar(36) PRIMARY KEY, payment_ref varchar(64) NOT NULL UNIQUE, ' +
    'status varchar(32) NOT NULL, status_changed_at timestamp NULL)',
  sqlite:
    'CREATE TABLE order_payments (id varchar(36) PRIMARY KEY, payment_ref varchar(64) NOT NULL UNIQUE, ' +
    'status varchar(32) NOT NULL, status_changed_at datetime NULL)',
};

const orderPayments = paymentStateTarget(OrderPayment, {
  machine: definePaymentStates({
    states: ['pending', 'paid', 'disputed'],
    // NOTE: a won dispute moves the payment back to paid, so only the time guard can tell a
    // late, older "succeeded" from the dispute's outcome.
    transitions: { pending: ['paid'], paid: ['disputed'], disputed: ['paid'] },
    events: { 'payment.succeeded': 'paid', 'dispute.opened': 'disputed' },
  }),
  key: 'paymentRef',
  state: 'status',
  occurredAt: 'statusChangedAt',
});

@Injectable()
class OrderPaymentHandlers {
  @OnPaymentEvent(['payment.succeeded', 'dispute.opened'])
  async apply(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    const result = await applyPaymentEvent(ctx.manager, orderPayments, event.paymentRef, event, {
      logger: null,
    });
    ctx.recordOutcome(result.outcome);
  }
}

let sequence = 0;

/** A signed Stripe event of `type` about `object`, created at `created` (Unix seconds). */
function stripeEvent(type: string, created: number, object: Record<string, unknown>) {
  return signedStripeEvent(SECRET, { type, created, object });
}

describe.each<[Platform, Database]>([
  ['express', 'sqlite'],
  ['fastify', 'postgres'],
])('payment states from deliveries over %s on %s', (platform, database) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({
      platform,
      database,
      entities: [OrderPayment],
      handlers: [OrderPaymentHandlers],
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: { pollIntervalMs: 50 },
      },
    });
    await app.dataSource.query(ORDER_PAYMENTS_TABLE[database]);
  });

  afterAll(() => app.close());

  /** Delivers `event`, waits until it is processed and returns the outcome its handler recorded. */
  async function deliver(event: ReturnType<typeof stripeEvent>): Promise<string | null> {
    const answer = await post(`${app.url}/webhooks/stripe`, event.body, event.headers);
    expect(answer.status).toBe(200);
    const events = app.dataSource.getRepository(WebhookEventEntity);
    let row: WebhookEventEntity | null = null;
    await eventually(
      async () => (row = await events.findOneBy({ eventId: event.id }))?.status === 'processed',
    );
    return row!.outcome;
  }

  it('keeps the state a newer event set when an older one is delivered after it', async () => {
    const paymentIntent = `pi_states_${process.pid}_${sequence++}`;
    await app.dataSource.getRepository(OrderPayment).insert({
      id: `order-${paymentIntent}`,
      paymentRef: paymentIntent,
      status: 'pending',
      statusChangedAt: null,
    });
    const t = Math.floor(Date.now() / 1000) - 3600;
    const checkoutPaid = stripeEvent('checkout.session.completed', t, {
      id: `cs_${paymentIntent}`,
      object: 'checkout.session',
      payment_intent: paymentIntent,
      payment_status: 'paid',
      amount_total: 4200,
      currency: 'eur',
    });
    const disputeOpened = stripeEvent('charge.dispute.created', t + 40, {
      id: `dp_${paymentIntent}`,
      object: 'dispute',
      payment_intent: paymentIntent,
      amount: 4200,
      currency: 'eur',
      status: 'needs_response',
    });
    // Stripe's own event for the same payment, two seconds after the checkout, arriving late.
    const intentSucceeded = stripeEvent('payment_intent.succeeded', t + 2, {
      id: paymentIntent,
      object: 'payment_intent',
      amount: 4200,
      currency: 'eur',
      status: 'succeeded',
    });

    expect(await deliver(checkoutPaid)).toBe('applied');
    expect(await deliver(disputeOpened)).toBe('applied');
    expect(await deliver(intentSucceeded)).toBe('stale');

    expect(
      await app.dataSource
        .getRepository(OrderPayment)
        .findOneByOrFail({ paymentRef: paymentIntent }),
    ).toMatchObject({ status: 'disputed', statusChangedAt: new Date((t + 40) * 1000) });
  });
});
