import { createHmac } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import fc from 'fast-check';
import { Column, Entity, In, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import {
  hmacEndpoint,
  OnPaymentEvent,
  PaymentEvent,
  stripeEndpoint,
  WebhookContext,
} from 'nestjs-payment-webhooks';
import {
  applyPaymentEvent,
  definePaymentStates,
  fitToColumn,
  paymentStateTarget,
} from 'nestjs-payment-webhooks/payments';
import { post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import { signedStripeEvent } from '../support/stripe-event';
import { Database, eventually, startTestApp, TestApp } from '../support/test-app';

/**
 * Whatever a provider signs into an event's fields (NUL, control characters, unpaired UTF-16
 * halves, values longer than any column, numbers no column takes), handlers get values both
 * databases take: a handler that looks its orders up by `event.merchantRef` with
 * `applyPaymentEvent()` and writes every field to a table of its own ends `processed`, on
 * SQLite and PostgreSQL. Stripe deliveries are signed by Stripe's SDK; the generic HMAC scheme,
 * which reads every normalized field from paths of the body, by node:crypto.
 */

const STRIPE_SECRET = 'whsec_signed_values';
const HMAC_SECRET = 'hmac-signed-values';
const RUNS = Number(process.env.SIGNED_VALUES_RUNS ?? 10);

/** The app's orders, keyed by the shop's text order id. */
@Entity({ name: 'sv_orders' })
class TextOrder {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  id!: string;

  @Column({ type: 'varchar', length: 16 })
  state!: string;
}

/** The same orders in an app that keys them by number. */
@Entity({ name: 'sv_numbered_orders' })
class NumberedOrder {
  @PrimaryColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'varchar', length: 16 })
  state!: string;
}

/** Every field of every event a handler got, as it wrote them to its own table. */
@Entity({ name: 'sv_seen' })
class SeenEvent {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'event_id', type: 'varchar', length: 255 })
  eventId!: string;

  @Column({ type: 'text' })
  type!: string;

  @Column({ name: 'native_type', type: 'text' })
  nativeType!: string;

  @Column({ name: 'payment_ref', type: 'varchar', length: 255, nullable: true })
  paymentRef!: string | null;

  @Column({ name: 'merchant_ref', type: 'varchar', length: 255, nullable: true })
  merchantRef!: string | null;

  @Column({ type: 'bigint', nullable: true })
  amount!: number | null;

  @Column({ type: 'varchar', length: 8, nullable: true })
  currency!: string | null;

  @Column({ type: 'text', nullable: true })
  status!: string | null;
}

const TABLES: Record<Database, string[]> = {
  postgres: [
    'CREATE TABLE sv_orders (id varchar(255) PRIMARY KEY, state varchar(16) NOT NULL)',
    'CREATE TABLE sv_numbered_orders (id integer PRIMARY KEY, state varchar(16) NOT NULL)',
    'CREATE TABLE sv_seen (id serial PRIMARY KEY, event_id varchar(255) NOT NULL, type text NOT NULL, ' +
      'native_type text NOT NULL, payment_ref varchar(255), merchant_ref varchar(255), amount bigint, ' +
      'currency varchar(8), status text)',
  ],
  sqlite: [
    'CREATE TABLE sv_orders (id varchar(255) PRIMARY KEY, state varchar(16) NOT NULL)',
    'CREATE TABLE sv_numbered_orders (id integer PRIMARY KEY, state varchar(16) NOT NULL)',
    'CREATE TABLE sv_seen (id integer PRIMARY KEY AUTOINCREMENT, event_id varchar(255) NOT NULL, ' +
      'type text NOT NULL, native_type text NOT NULL, payment_ref varchar(255), ' +
      'merchant_ref varchar(255), amount bigint, currency varchar(8), status text)',
  ],
};

const machine = definePaymentStates({
  states: ['pending', 'paid'],
  transitions: { pending: ['paid'] },
  events: { 'payment.succeeded': 'paid' },
});
const textOrders = paymentStateTarget(TextOrder, { machine });
const numberedOrders = paymentStateTarget(NumberedOrder, { machine });

@Injectable()
class EveryFieldHandler {
  @OnPaymentEvent('*')
  async handle(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    const byText = await applyPaymentEvent(ctx.manager, textOrders, event.merchantRef, event, {
      logger: null,
    });
    const byNumber = await applyPaymentEvent(
      ctx.manager,
      numberedOrders,
      event.merchantRef,
      event,
      {
        logger: null,
      },
    );
    ctx.recordOutcome(`${byText.outcome}/${byNumber.outcome}`);
    await ctx.manager.insert(SeenEvent, {
      eventId: event.eventId,
      type: event.type,
      nativeType: event.nativeType,
      paymentRef: event.paymentRef,
      merchantRef: event.merchantRef,
      amount: event.amount,
      currency: event.currency,
      status: event.status,
    });
  }
}

/** Text a provider may sign: control characters, NUL, unpaired halves, astral, `~`, and lengths past 255. */
const hostileText = fc.oneof(
  fc.string({
    unit: fc.constantFrom(
      'a',
      '7',
      '~',
      '\u0000',
      '\u001b',
      '\u0007',
      '\n',
      '\uD800',
      '\uDC00',
      '😀',
      'é',
    ),
    minLength: 1,
    maxLength: 40,
  }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }),
  fc
    .tuple(fc.string({ unit: fc.constantFrom('x', '\u0000', '\uD83D'), maxLength: 5 }), fc.nat(400))
    .map(([head, n]) => head + 'y'.repeat(256 + n)),
);

/** The order id an event names: a known order (text or number), or anything. */
const orderRef = fc.oneof(
  fc.constantFrom('order-1', '42', 'a\u0000b\u001b[31m'),
  hostileText,
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
);

/** Amounts in minor units as a body may carry them: ordinary, huge, negative, fractional. */
const amount = fc.oneof(
  fc.integer({ min: 0, max: 1_000_000 }),
  fc.constantFrom(1e20, -5, 12.5, Number.MAX_SAFE_INTEGER + 2, 2 ** 63),
);

const fields = fc.record({
  id: hostileText,
  type: fc.oneof(fc.constant('payment_intent.succeeded'), hostileText),
  paymentRef: hostileText,
  orderRef,
  amount,
  currency: fc.oneof(fc.constantFrom('usd', 'jpy'), hostileText),
  status: hostileText,
});

type Fields = typeof fields extends fc.Arbitrary<infer T> ? T : never;

let sequence = 0;

/** A unique prefix, so events of different runs never share a dedup key. */
function unique(): string {
  return `${process.pid}-${Date.now().toString(36)}-${sequence++}-`;
}

/** A Stripe `payment_intent` event with `fields` in its fields, signed by Stripe's SDK. */
function stripeDelivery(f: Fields) {
  const event = signedStripeEvent(STRIPE_SECRET, {
    id: `evt_${unique()}${f.id}`,
    type: f.type,
    object: {
      id: `pi_${f.paymentRef}`,
      object: 'payment_intent',
      amount: f.amount,
      currency: f.currency,
      status: f.status,
      metadata: { orderId: f.orderRef },
    },
  });
  return { path: 'stripe', body: event.body, headers: event.headers };
}

/** A generic HMAC event with `fields` at every path the endpoint reads, signed by node:crypto. */
function hmacDelivery(f: Fields) {
  const body = JSON.stringify({
    id: unique() + f.id,
    type: f.type === 'payment_intent.succeeded' ? 'payment.succeeded' : f.type,
    data: {
      orderId: f.orderRef,
      payment: f.paymentRef,
      amount: f.amount,
      currency: f.currency,
      status: f.status,
    },
  });
  const signature = createHmac('sha256', HMAC_SECRET).update(body).digest('hex');
  return { path: 'hmac', body, headers: { 'x-signature': signature } };
}

describe.each<Database>(['sqlite', 'postgres'])(
  'signed values in every field, on %s',
  (database) => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp({
        platform: 'express',
        database,
        entities: [TextOrder, NumberedOrder, SeenEvent],
        handlers: [EveryFieldHandler],
        webhooks: {
          endpoints: [
            stripeEndpoint({ name: 'stripe', secret: STRIPE_SECRET }),
            hmacEndpoint({
              name: 'hmac',
              secret: HMAC_SECRET,
              paymentRefPath: 'data.payment',
              amountPath: 'data.amount',
              currencyPath: 'data.currency',
              statusPath: 'data.status',
            }),
          ],
          dispatch: {
            pollIntervalMs: 50,
            retry: { maxAttempts: 2, baseDelayMs: 50, maxDelayMs: 50 },
          },
        },
      });
      for (const statement of TABLES[database]) {
        await t.dataSource.query(statement);
      }
    });

    afterAll(() => t.close());

    it('never makes an event unprocessable: each stored event ends processed, its fields written by the handler', async () => {
      const events = t.dataSource.getRepository(WebhookEventEntity);
      const seen = t.dataSource.getRepository(SeenEvent);
      await fc.assert(
        fc.asyncProperty(fc.array(fields, { minLength: 1, maxLength: 8 }), async (batch) => {
          await t.dataSource.query('DELETE FROM sv_orders');
          await t.dataSource.query('DELETE FROM sv_numbered_orders');
          await t.dataSource.getRepository(TextOrder).insert({ id: 'order-1', state: 'pending' });
          await t.dataSource.getRepository(NumberedOrder).insert({ id: 42, state: 'pending' });
          const deliveries = batch.flatMap((f) => [stripeDelivery(f), hmacDelivery(f)]);
          for (const delivery of deliveries) {
            const answer = await post(
              `${t.url}/webhooks/${delivery.path}`,
              delivery.body,
              delivery.headers,
            );
            expect(answer.status).toBe(200);
          }
          // NOTE: each event ends processed, or dead after its two attempts.
          await eventually(
            async () =>
              (await events.countBy({ status: In(['processed', 'dead']) })) ===
              (await events.count()),
            30_000,
          );
          expect(await events.countBy({ status: 'dead' })).toBe(0);
          expect(await seen.count()).toBe(await events.count());
          for (const row of await events.find({
            order: { receivedAt: 'DESC' },
            take: deliveries.length,
          })) {
            expect(await seen.countBy({ eventId: row.eventId })).toBeGreaterThanOrEqual(1);
          }
        }),
        { numRuns: RUNS },
      );
      // The attack's own case: a signed order id with a NUL and an escape sequence.
      const attack = signedStripeEvent(STRIPE_SECRET, { orderId: 'a\u0000b\u001b[31m' });
      expect((await post(`${t.url}/webhooks/stripe`, attack.body, attack.headers)).status).toBe(
        200,
      );
      await eventually(
        async () => (await events.findOneBy({ eventId: attack.id }))?.status === 'processed',
      );
      const [row] = await seen.findBy({ eventId: attack.id });
      expect(row.merchantRef).toBe(fitToColumn('a\u0000b\u001b[31m', 255));
      expect(row.merchantRef!.startsWith('a\uFFFDb\u001b[31m~')).toBe(true);
    });

    it('moves the order an event names, found by the stored form of its id', async () => {
      const orderId = `ord\u0000${unique()}`;
      await t.dataSource
        .getRepository(TextOrder)
        .insert({ id: fitToColumn(orderId, 255), state: 'pending' });
      const event = signedStripeEvent(STRIPE_SECRET, { orderId });
      expect((await post(`${t.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(200);
      const events = t.dataSource.getRepository(WebhookEventEntity);
      await eventually(
        async () => (await events.findOneBy({ eventId: event.id }))?.status === 'processed',
      );
      const order = await t.dataSource
        .getRepository(TextOrder)
        .findOneBy({ id: fitToColumn(orderId, 255) });
      expect(order?.state).toBe('paid');
    });
  },
);
