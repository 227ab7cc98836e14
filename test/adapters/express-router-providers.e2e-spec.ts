import { randomBytes, randomUUID } from 'node:crypto';
import {
  adyenEndpoint,
  paddleEndpoint,
  sberEndpoint,
  squareEndpoint,
  stripeEndpoint,
  tbankEndpoint,
  yookassaEndpoint,
  yoomoneyEndpoint,
} from 'nestjs-payment-webhooks/express';
import {
  adyenNotificationItem,
  paddleFixtures,
  sberFixtures,
  signAdyenDelivery,
  signPaddleDelivery,
  signSberDelivery,
  signSquareDelivery,
  signTBankDelivery,
  signYooMoneyDelivery,
  SignedDelivery,
  squareFixtures,
  tbankFixtures,
  yookassaDelivery,
  yookassaPayment,
  yoomoneyFixtures,
} from 'nestjs-payment-webhooks/testing';
import { FakeProviderApi } from '../support/fake-provider-api';
import { post } from '../support/http';
import { inboxStatuses, RouterTestApp, startRouterApp } from '../support/router-app';
import { stripePaymentEvent } from '../support/stripe-event';
import { countEffects, Database, eventually, TestEffect } from '../support/test-app';

/**
 * The plain Express router with every provider kind the package verifies on its own (PayPal,
 * which needs a certificate chain, and Stripe, Qvard and Sber's GET callbacks run in
 * test/adapters/webhooks.e2e-spec.ts), and the context its function handlers get.
 */

const STRIPE_SECRET = 'whsec_express_router_providers';
const TBANK_PASSWORD = 'tbank-express-router-password';
const ADYEN_HMAC_KEY = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';

const stripeEvent = () => stripePaymentEvent(STRIPE_SECRET);

const SQUARE_URL = 'https://shop.example.test/webhooks/square';
const PROVIDER_SECRETS = {
  paddle: 'pdl_ntfset_express_router_secret',
  yoomoney: 'yoomoney-express-router-secret',
  square: 'square-express-router-key',
  sber: 'sber-express-router-token',
};

/** A genuine "payment succeeded" for `orderId` from each provider kind, and its exact answer. */
const KINDS: {
  endpoint: string;
  answer: string;
  paid: (orderId: string, fake: FakeProviderApi) => SignedDelivery;
}[] = [
  {
    endpoint: 'tbank',
    answer: 'OK',
    paid: (orderId) =>
      signTBankDelivery({
        password: TBANK_PASSWORD,
        payload: tbankFixtures.confirmed({ orderId, amount: 1999 }),
      }),
  },
  {
    endpoint: 'sber',
    answer: '',
    paid: (orderId) =>
      signSberDelivery({
        method: 'POST',
        callbackToken: PROVIDER_SECRETS.sber,
        payload: sberFixtures.deposited({ orderNumber: orderId, amount: 1999 }),
      }),
  },
  {
    endpoint: 'adyen',
    answer: '[accepted]',
    paid: (orderId) =>
      signAdyenDelivery({
        hmacKey: ADYEN_HMAC_KEY,
        items: [
          adyenNotificationItem('CAPTURE', {
            merchantReference: orderId,
            pspReference: randomBytes(8).toString('hex').toUpperCase(),
            originalReference: randomBytes(8).toString('hex').toUpperCase(),
          }),
        ],
      }),
  },
  {
    endpoint: 'paddle',
    answer: '',
    paid: (orderId) =>
      signPaddleDelivery({
        secret: PROVIDER_SECRETS.paddle,
        payload: paddleFixtures.transactionCompleted({ orderId, amount: 1999 }),
      }),
  },
  {
    endpoint: 'yoomoney',
    answer: '',
    paid: (orderId) =>
      signYooMoneyDelivery({
        notificationSecret: PROVIDER_SECRETS.yoomoney,
        payload: yoomoneyFixtures.p2pIncoming({ label: orderId, amount: '19.99' }),
      }),
  },
  {
    endpoint: 'square',
    answer: '',
    paid: (orderId) =>
      signSquareDelivery({
        signatureKey: PROVIDER_SECRETS.square,
        notificationUrl: SQUARE_URL,
        payload: squareFixtures.paymentUpdated({ status: 'COMPLETED', orderId, amount: 1999 }),
      }),
  },
  {
    endpoint: 'yookassa',
    answer: '',
    paid: (orderId, fake) => {
      const payment = yookassaPayment('succeeded', { id: randomUUID(), metadata: { orderId } });
      fake.setPayment('yookassa', payment.id, { ...payment, status: 'succeeded', paid: true });
      return yookassaDelivery({ event: 'payment.succeeded', object: payment });
    },
  },
];

describe.each<Database>(['sqlite', 'postgres'])(
  'every provider kind over the router on %s',
  (database) => {
    let t: RouterTestApp;
    let fake: FakeProviderApi;

    beforeAll(async () => {
      fake = await FakeProviderApi.start();
      const yookassa = fake.clientOptions('yookassa');
      t = await startRouterApp({
        database,
        webhooks: {
          endpoints: [
            tbankEndpoint({ name: 'tbank', password: TBANK_PASSWORD }),
            sberEndpoint({ name: 'sber', callbackToken: PROVIDER_SECRETS.sber }),
            adyenEndpoint({ name: 'adyen', hmacKey: ADYEN_HMAC_KEY }),
            paddleEndpoint({ name: 'paddle', secret: PROVIDER_SECRETS.paddle }),
            yoomoneyEndpoint({ name: 'yoomoney', notificationSecret: PROVIDER_SECRETS.yoomoney }),
            squareEndpoint({
              name: 'square',
              signatureKey: PROVIDER_SECRETS.square,
              notificationUrl: SQUARE_URL,
            }),
            yookassaEndpoint({ name: 'yookassa', ...yookassa, allowedIps: ['127.0.0.1', '::1'] }),
          ],
          dispatch: { pollIntervalMs: 50 },
        },
      });
    });
    afterAll(async () => {
      await t?.close();
      await fake?.close();
    });

    it.each(KINDS)(
      '$endpoint: answers both deliveries exactly, stores one row and applies the payment once',
      async ({ endpoint, answer, paid }) => {
        const orderId = `order-${endpoint}-${randomUUID()}`;
        const delivery = paid(orderId, fake);
        const send = () =>
          post(`${t.url}/webhooks/${endpoint}`, delivery.body, { ...delivery.headers });
        const [first, again] = [await send(), await send()];
        expect([first.status, first.body]).toEqual([200, answer]);
        expect([again.status, again.body]).toEqual([200, answer]);
        const effects = () =>
          t.dataSource.getRepository(TestEffect).countBy({ merchantRef: orderId });
        await eventually(async () => (await effects()) === 1);
        const [row] = (await t.dataSource.query(
          `SELECT count(*) AS n, max(delivery_count) AS deliveries FROM webhook_events WHERE endpoint = ${database === 'postgres' ? '$1' : '?'} AND merchant_ref = ${database === 'postgres' ? '$2' : '?'}`,
          [endpoint, orderId],
        )) as { n: string | number; deliveries: string | number }[];
        expect([Number(row.n), Number(row.deliveries)]).toEqual([1, 2]);
        await new Promise((resolve) => setTimeout(resolve, 150));
        expect(await effects()).toBe(1);
      },
    );
  },
);

describe('the context function handlers get', () => {
  it('carries the transaction manager, the attempt, a stable idempotency key, a logger and fetchStatus', async () => {
    const seen: { attempt: number; key: string; status: string }[] = [];
    const lines: string[] = [];
    const fake = await FakeProviderApi.start();
    const t = await startRouterApp({
      database: 'sqlite',
      webhooks: {
        endpoints: [
          stripeEndpoint({
            name: 'stripe',
            secret: STRIPE_SECRET,
            api: fake.clientOptions('stripe'),
          }),
        ],
        dispatch: {
          pollIntervalMs: 50,
          retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 },
        },
        logger: {
          log: (line: unknown) => lines.push(String(line)),
          warn: (line: unknown) => lines.push(String(line)),
          error: () => undefined,
        },
      },
      handlers: [
        {
          on: 'payment.succeeded',
          name: 'fulfil',
          handle: async (event, ctx) => {
            const { status } = await ctx.fetchStatus();
            seen.push({ attempt: ctx.attempt, key: ctx.idempotencyKey, status });
            ctx.logger.log(`fulfilling ${event.eventId}`);
            await ctx.manager.insert(TestEffect, {
              eventId: event.eventId,
              handler: 'fulfil',
              merchantRef: event.merchantRef,
            });
            if (ctx.attempt === 1) {
              throw new Error('first attempt fails');
            }
          },
        },
      ],
    });
    try {
      const event = stripeEvent();
      fake.setPayment('stripe', `pi_${event.id}`, {
        status: 'succeeded',
        amount: 1999,
        currency: 'usd',
      });
      await post(`${t.url}/webhooks/stripe`, event.body, event.headers());
      await eventually(async () => (await inboxStatuses(t, event.id))[0]?.status === 'processed');
      expect(seen.map((call) => call.attempt)).toEqual([1, 2]);
      expect(seen[0].key).toBe(seen[1].key);
      expect(seen[0].key).not.toBe('');
      expect(seen[0].status).toBe('succeeded');
      expect(lines.some((line) => line.includes(`fulfilling ${event.id}`))).toBe(true);
      // The failed attempt's insert rolled back with its transaction.
      expect(await countEffects(t, event.id)).toBe(1);
    } finally {
      await t.close();
      await fake.close();
    }
  });
});
