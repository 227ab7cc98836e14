import { notificationsOf } from '../notifications';
import { YOOKASSA_IP_RANGES, yookassaEndpoint } from './yookassa.provider';
import {
  YOOKASSA_ORDER_ID,
  YOOKASSA_PAYMENT_ID,
  YOOKASSA_REFUND_ID,
  yookassaDeal,
  yookassaPayment,
  yookassaPayout,
  yookassaRefund,
} from './yookassa.fixtures';
import { yookassaDelivery } from './yookassa.signer';
import { storedEventIds } from '../../spec-support/stored-event-ids';

const UUID_LIKE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('yookassaDelivery', () => {
  it('builds the JSON notification YooKassa posts, with no signature header', () => {
    const object = yookassaPayment();
    const delivery = yookassaDelivery({ event: 'payment.succeeded', object });
    expect(delivery).toEqual({
      provider: 'yookassa',
      method: 'POST',
      body: JSON.stringify({ type: 'notification', event: 'payment.succeeded', object }),
      headers: { 'content-type': 'application/json' },
      eventId: `payment.succeeded:${YOOKASSA_PAYMENT_ID}`,
    });
  });

  it.each([
    ['payment.succeeded', yookassaPayment('succeeded'), 'payment.succeeded'],
    ['payment.waiting_for_capture', yookassaPayment('waiting_for_capture'), 'payment.authorized'],
    ['payment.canceled', yookassaPayment('canceled'), 'payment.canceled'],
    ['refund.succeeded', yookassaRefund(), 'refund.succeeded'],
    ['payout.succeeded', yookassaPayout(), 'yookassa:payout.succeeded'],
    ['deal.closed', yookassaDeal(), 'yookassa:deal.closed'],
  ])('round-trips %s through a YooKassa endpoint', (event, object, type) => {
    const endpoint = yookassaEndpoint({ name: 'yookassa', verifyWithProvider: false });
    const { body } = yookassaDelivery({ event, object });
    const request = { rawBody: Buffer.from(body), headers: {}, receivedAt: new Date() };
    endpoint.provider.verify(request);
    const [notification] = notificationsOf(endpoint.provider.normalize(request));
    expect(notification).toMatchObject({ type, eventId: `${event}:${object.id}` });
  });

  it('is trusted by source address only: the default allowlist refuses a local sender', () => {
    const endpoint = yookassaEndpoint({ name: 'yookassa', verifyWithProvider: false });
    expect(endpoint.allowedSources!.allows('127.0.0.1')).toBe(false);
    expect(endpoint.allowedSources!.allows(YOOKASSA_IP_RANGES[3])).toBe(true);
  });

  it('names the key a YooKassa endpoint stores the notification under', async () => {
    const delivery = yookassaDelivery({ event: 'refund.succeeded', object: yookassaRefund() });
    const endpoint = yookassaEndpoint({ name: 'yookassa', verifyWithProvider: false });
    expect(await storedEventIds(endpoint, delivery)).toEqual([
      `refund.succeeded:${YOOKASSA_REFUND_ID}`,
    ]);
    expect(delivery.eventId).toBe(`refund.succeeded:${YOOKASSA_REFUND_ID}`);
  });
});

describe('YooKassa fixtures', () => {
  it('look like API v3 objects', () => {
    const payment = yookassaPayment();
    expect(payment.id).toMatch(UUID_LIKE);
    expect(payment).toMatchObject({
      id: YOOKASSA_PAYMENT_ID,
      status: 'succeeded',
      paid: true,
      amount: { value: '100.00', currency: 'RUB' },
      metadata: { orderId: YOOKASSA_ORDER_ID },
    });
    expect(yookassaRefund()).toMatchObject({
      id: YOOKASSA_REFUND_ID,
      payment_id: YOOKASSA_PAYMENT_ID,
    });
    expect(YOOKASSA_REFUND_ID).toMatch(UUID_LIKE);
  });

  it.each([
    ['pending', false, false],
    ['waiting_for_capture', true, false],
    ['succeeded', true, true],
    ['canceled', false, false],
  ] as const)('give a %s payment the fields of that status', (status, paid, captured) => {
    const payment = yookassaPayment(status);
    expect(payment.paid).toBe(paid);
    expect('captured_at' in payment).toBe(captured);
    expect('cancellation_details' in payment).toBe(status === 'canceled');
  });
});
