import {
  hmacEndpoint,
  qvardEndpoint,
  standardWebhooksEndpoint,
  stripeEndpoint,
} from 'nestjs-payment-webhooks';
import {
  SignedDelivery,
  WebhookTestClient,
  signHmacDelivery,
  signQvardDelivery,
  signStandardWebhookDelivery,
  signStripeDelivery,
  stripeFixtures,
} from 'nestjs-payment-webhooks/testing';
import { WebhookEventEntity } from '../support/internals';
import { countEffects, eventually, Platform, startTestApp, TestApp } from '../support/test-app';

const STRIPE_SECRET = 'whsec_testing_deliveries';
const HMAC = { secret: 'acme-shared-secret', signatureHeader: 'x-acme-signature' };
const QVARD_SECRET = 'qv_testing_deliveries';
const STANDARD_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe.each<Platform>(['express', 'fastify'])(
  'whole deliveries from /testing sent to an app on %s',
  (platform) => {
    let app: TestApp;
    let client: WebhookTestClient;

    beforeAll(async () => {
      app = await startTestApp({
        platform,
        database: 'sqlite',
        webhooks: {
          endpoints: [
            stripeEndpoint({ name: 'stripe', secret: STRIPE_SECRET }),
            hmacEndpoint({ name: 'acme', kind: 'acme', ...HMAC }),
            qvardEndpoint({ name: 'qvard', secret: QVARD_SECRET }),
            standardWebhooksEndpoint({ name: 'standard', secret: STANDARD_SECRET }),
          ],
          dispatch: { pollIntervalMs: 50 },
        },
      });
      client = new WebhookTestClient(app.url);
    });

    afterAll(async () => {
      await app.close();
    });

    async function processed(endpoint: string, eventId: string): Promise<WebhookEventEntity> {
      const rows = app.dataSource.getRepository(WebhookEventEntity);
      let row: WebhookEventEntity | null = null;
      await eventually(
        async () => (row = await rows.findOneBy({ endpoint, eventId }))?.status === 'processed',
      );
      return row!;
    }

    /** Posts a delivery with nothing but fetch, its headers and body as they are. */
    async function post(endpoint: string, delivery: SignedDelivery): Promise<number> {
      const response = await fetch(await client.urlOf(endpoint), {
        method: delivery.method,
        headers: delivery.headers,
        body: delivery.body,
      });
      return response.status;
    }

    it('stores a Stripe payment built from the fixtures, sent by WebhookTestClient', async () => {
      const delivery = signStripeDelivery({
        secret: STRIPE_SECRET,
        type: 'payment_intent.succeeded',
        object: stripeFixtures.paymentIntent(),
      });
      expect((await client.send('stripe', delivery)).status).toBe(200);
      const { id } = JSON.parse(delivery.body) as { id: string };
      expect(await processed('stripe', id)).toMatchObject({
        type: 'payment.succeeded',
        paymentRef: stripeFixtures.ids.paymentIntent,
        merchantRef: 'order-1042',
        amount: 2500,
        currency: 'EUR',
      });
      expect(await countEffects(app, id)).toBe(1);
    });

    it('stores a Stripe refund sent with fetch, and refuses it under another secret', async () => {
      const refund = stripeFixtures.refund({ id: `re_${platform}_fetch` });
      const forged = signStripeDelivery({
        secret: 'whsec_someone_else',
        type: 'refund.created',
        object: refund,
      });
      expect(await post('stripe', forged)).toBe(400);
      const rows = app.dataSource.getRepository(WebhookEventEntity);
      expect(await rows.countBy({ eventId: `${refund.id}:succeeded` })).toBe(0);
      const delivery = signStripeDelivery({
        secret: STRIPE_SECRET,
        type: 'refund.created',
        object: refund,
      });
      expect(await post('stripe', delivery)).toBe(200);
      expect(await processed('stripe', `${refund.id}:succeeded`)).toMatchObject({
        type: 'refund.succeeded',
        paymentRef: stripeFixtures.ids.paymentIntent,
      });
    });

    it('stores the HMAC, Qvard and Standard Webhooks deliveries their builders make', async () => {
      const hmac = signHmacDelivery({
        ...HMAC,
        kind: 'acme',
        payload: {
          id: `evt_${platform}_acme`,
          type: 'payment.succeeded',
          data: { orderId: 'o-7' },
        },
      });
      const qvard = signQvardDelivery({
        secret: QVARD_SECRET,
        payload: { id: `order-${platform}-9`, status: 'completed' },
      });
      const standard = signStandardWebhookDelivery({
        secret: STANDARD_SECRET,
        id: `msg_${platform}_standard`,
        payload: { type: 'payment.succeeded', data: { id: 'pay_1' } },
      });
      expect((await client.send('acme', hmac)).status).toBe(200);
      expect(await post('qvard', qvard)).toBe(200);
      expect((await client.send('standard', standard)).status).toBe(200);
      expect(await processed('acme', `evt_${platform}_acme`)).toMatchObject({
        provider: 'acme',
        type: 'payment.succeeded',
        merchantRef: 'o-7',
      });
      expect(await processed('qvard', `order-${platform}-9:completed`)).toMatchObject({
        type: 'payment.succeeded',
      });
      expect(await processed('standard', `msg_${platform}_standard`)).toMatchObject({
        type: 'payment.succeeded',
      });
    });
  },
);
