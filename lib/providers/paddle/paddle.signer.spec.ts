import { createHmac } from 'node:crypto';
import { EventName, Paddle } from '@paddle/paddle-node-sdk';
import { paddleFixtures } from './paddle.fixtures';
import { signPaddleDelivery } from './paddle.signer';
import { paddleEndpoint } from './paddle.provider';
import { storedEventIds } from '../../spec-support/stored-event-ids';

const SECRET = 'pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_6h3qd3uFSi9YCD3OLYAShQI90XTI5vEI';
const paddle = new Paddle('pdl_sdbx_apikey_01hv8x2acma2gz8he1ffw2b4q8_test');

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

describe('signPaddleDelivery', () => {
  it('makes the header node:crypto computes, which the official SDK accepts', async () => {
    const now = nowSeconds();
    const delivery = signPaddleDelivery({
      payload: paddleFixtures.transactionCompleted(),
      secret: SECRET,
      timestamp: now,
    });
    const h1 = createHmac('sha256', SECRET).update(`${now}:${delivery.body}`).digest('hex');
    expect(delivery.headers['paddle-signature']).toBe(`ts=${now};h1=${h1}`);
    await expect(
      paddle.webhooks.isSignatureValid(delivery.body, SECRET, delivery.headers['paddle-signature']),
    ).resolves.toBe(true);
    await expect(
      paddle.webhooks.isSignatureValid(
        `${delivery.body} `,
        SECRET,
        delivery.headers['paddle-signature'],
      ),
    ).resolves.toBe(false);
  });

  it('defaults the timestamp to now and sends a JSON content type', () => {
    const before = nowSeconds();
    const delivery = signPaddleDelivery({ payload: '{}', secret: SECRET });
    const ts = Number(/^ts=(\d+);h1=[0-9a-f]{64}$/.exec(delivery.headers['paddle-signature'])?.[1]);
    expect(ts).toBeGreaterThanOrEqual(before);
    expect(ts).toBeLessThanOrEqual(nowSeconds());
    expect(delivery).toMatchObject({
      provider: 'paddle',
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
  });

  it('writes one h1 per secret while rotating', () => {
    const header = signPaddleDelivery({
      payload: '{}',
      secret: ['pdl_ntfset_old', 'pdl_ntfset_new'],
      timestamp: 1700000000,
    }).headers['paddle-signature'];
    const parts = header.split(';');
    expect(parts[0]).toBe('ts=1700000000');
    expect(parts.slice(1)).toEqual([
      `h1=${createHmac('sha256', 'pdl_ntfset_old').update('1700000000:{}').digest('hex')}`,
      `h1=${createHmac('sha256', 'pdl_ntfset_new').update('1700000000:{}').digest('hex')}`,
    ]);
  });

  it('names the event id a Paddle endpoint stores the event under', async () => {
    const payload = paddleFixtures.transactionCompleted({ orderId: 'order-42' });
    const delivery = signPaddleDelivery({ payload, secret: SECRET });
    const endpoint = paddleEndpoint({ name: 'paddle', secret: SECRET });
    expect(await storedEventIds(endpoint, delivery)).toEqual([payload.event_id]);
    expect(delivery.eventId).toBe(payload.event_id);
  });
});

describe('paddleFixtures', () => {
  async function unmarshal(event: object) {
    const delivery = signPaddleDelivery({ payload: event, secret: SECRET });
    return paddle.webhooks.unmarshal(delivery.body, SECRET, delivery.headers['paddle-signature']);
  }

  it.each([
    [
      'transactionCompleted',
      paddleFixtures.transactionCompleted,
      EventName.TransactionCompleted,
      'completed',
    ],
    ['transactionPaid', paddleFixtures.transactionPaid, EventName.TransactionPaid, 'paid'],
    [
      'transactionPaymentFailed',
      paddleFixtures.transactionPaymentFailed,
      EventName.TransactionPaymentFailed,
      'ready',
    ],
    [
      'transactionCanceled',
      paddleFixtures.transactionCanceled,
      EventName.TransactionCanceled,
      'canceled',
    ],
  ])(
    '%s is a transaction event the official SDK reads',
    async (_name, build, eventType, status) => {
      const event = await unmarshal(
        build({
          orderId: 'order-42',
          amount: 2599,
          currency: 'EUR',
          transactionId: 'txn_01hv8wptq8987qeep44cyrewp9',
        }),
      );
      expect(event.eventType).toBe(eventType);
      expect(event.eventId).toMatch(/^evt_[a-z\d]{26}$/);
      expect(event.notificationId).toMatch(/^ntf_[a-z\d]{26}$/);
      const data = event.data as {
        id: string;
        status: string;
        currencyCode: string;
        customData: unknown;
        details: { totals: { grandTotal: string } };
      };
      expect(data).toMatchObject({
        id: 'txn_01hv8wptq8987qeep44cyrewp9',
        status,
        currencyCode: 'EUR',
        customData: { orderId: 'order-42' },
      });
      expect(data.details.totals.grandTotal).toBe('2599');
    },
  );

  it.each([
    [
      'an approved refund',
      paddleFixtures.refund(),
      'refund',
      'approved',
      EventName.AdjustmentUpdated,
    ],
    [
      'a pending refund',
      paddleFixtures.refund({ status: 'pending_approval', eventType: 'adjustment.created' }),
      'refund',
      'pending_approval',
      EventName.AdjustmentCreated,
    ],
    [
      'a chargeback',
      paddleFixtures.chargeback(),
      'chargeback',
      'approved',
      EventName.AdjustmentCreated,
    ],
    [
      'a chargeback reversal',
      paddleFixtures.chargeback({ action: 'chargeback_reverse' }),
      'chargeback_reverse',
      'approved',
      EventName.AdjustmentCreated,
    ],
  ])('builds %s the official SDK reads', async (_label, fixture, action, status, eventType) => {
    const event = await unmarshal(fixture);
    expect(event.eventType).toBe(eventType);
    const data = event.data as {
      id: string;
      action: string;
      status: string;
      transactionId: string;
      totals: { total: string };
    };
    expect(data).toMatchObject({ action, status });
    expect(data.id).toMatch(/^adj_[a-z\d]{26}$/);
    expect(data.transactionId).toMatch(/^txn_[a-z\d]{26}$/);
    expect(data.totals.total).toBe('1099');
  });

  it('writes occurred_at with microseconds, as Paddle does', () => {
    const event = paddleFixtures.transactionCompleted({
      occurredAt: new Date('2024-04-12T10:18:49.621Z'),
    });
    expect(event.occurred_at).toBe('2024-04-12T10:18:49.621000Z');
  });
});
