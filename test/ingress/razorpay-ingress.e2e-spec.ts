import { createHmac } from 'node:crypto';
import { razorpayEndpoint } from 'nestjs-payment-webhooks';
import {
  razorpayFixtures,
  SignedDelivery,
  WebhookTestClient,
} from 'nestjs-payment-webhooks/testing';
import { WebhookEventEntity } from '../support/internals';
import { startTestApp, TestApp } from '../support/test-app';

const SECRET = 'razorpay-ingress-spec-secret';
const DAY_MS = 86_400_000;
/** Dedup keys live 31 days here, so the signed created_at may be at most that old. */
const HORIZON_DAYS = 31;

/** A delivery as Razorpay sends it: signed with node:crypto, the event id header unsigned. */
function delivery(event: object, eventId: string): SignedDelivery {
  const body = JSON.stringify(event);
  return {
    provider: 'razorpay',
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'x-razorpay-signature': createHmac('sha256', SECRET).update(body).digest('hex'),
      'x-razorpay-event-id': eventId,
    },
  };
}

describe('Razorpay deliveries through the ingress', () => {
  let app: TestApp;
  let client: WebhookTestClient;

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      webhooks: {
        endpoints: [razorpayEndpoint({ name: 'razorpay', secret: SECRET })],
        retention: { processedDays: HORIZON_DAYS, intervalMs: 0 },
        dispatch: { pollIntervalMs: 50 },
      },
    });
    client = new WebhookTestClient(app.url);
  });

  afterAll(async () => {
    await app?.close();
  });

  function rows(paymentId: string): Promise<WebhookEventEntity[]> {
    return app.dataSource
      .getRepository(WebhookEventEntity)
      .findBy({ endpoint: 'razorpay', paymentRef: paymentId });
  }

  it('stores a re-sent delivery once, even under another x-razorpay-event-id', async () => {
    const event = razorpayFixtures.paymentCaptured({ paymentId: 'pay_IngressOnce0001' });

    const first = await client.send('razorpay', delivery(event, 'Kc2VYb8Zp0cE3z'));
    const again = await client.send('razorpay', delivery(event, 'Kc2VYb8Zp0cE40'));

    expect([first.status, first.body]).toEqual([200, '']);
    expect([again.status, again.body]).toEqual([200, '']);
    const stored = await rows('pay_IngressOnce0001');
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      eventId: `payment.captured:pay_IngressOnce0001:${event.created_at}`,
      deliveryCount: 2,
    });
  });

  it('refuses with 400 an event whose signed created_at is older than dedup keys are kept', async () => {
    const createdAt = new Date(Date.now() - (HORIZON_DAYS + 1) * DAY_MS);
    const event = razorpayFixtures.paymentCaptured({ paymentId: 'pay_IngressOld00001', createdAt });

    expect((await client.send('razorpay', delivery(event, 'Kc2VYb8Zp0cE41'))).status).toBe(400);
    expect(await rows('pay_IngressOld00001')).toHaveLength(0);
  });

  it('stores an event just inside that horizon: a genuine late delivery is kept', async () => {
    const createdAt = new Date(Date.now() - (HORIZON_DAYS - 1) * DAY_MS);
    const event = razorpayFixtures.paymentCaptured({ paymentId: 'pay_IngressLate0001', createdAt });

    expect((await client.send('razorpay', delivery(event, 'Kc2VYb8Zp0cE42'))).status).toBe(200);
    expect(await rows('pay_IngressLate0001')).toHaveLength(1);
  });

  it('refuses with 400 a delivery signed with another secret, storing nothing', async () => {
    const event = razorpayFixtures.paymentCaptured({ paymentId: 'pay_IngressWrong001' });
    const genuine = delivery(event, 'Kc2VYb8Zp0cE43');
    const forged = {
      ...genuine,
      headers: {
        ...genuine.headers,
        'x-razorpay-signature': createHmac('sha256', 'other').update(genuine.body).digest('hex'),
      },
    };

    expect((await client.send('razorpay', forged)).status).toBe(400);
    expect(await rows('pay_IngressWrong001')).toHaveLength(0);
  });
});
