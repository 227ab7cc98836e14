import { createHmac } from 'node:crypto';
import { cloudPaymentsFixtures } from './cloudpayments.fixtures';
import { signCloudPaymentsDelivery } from './cloudpayments.signer';
import { cloudPaymentsEndpoint } from './cloudpayments.provider';
import { storedEventIds } from '../../spec-support/stored-event-ids';

const SECRET = 'a3f6b0c9e1d24f7a8b5c6d7e8f901234';
const hmac = (text: string) => createHmac('sha256', SECRET).update(text).digest('base64');

describe('signCloudPaymentsDelivery', () => {
  it('posts the form body with Content-HMAC over it and X-Content-HMAC over its decoded text', () => {
    const sent = signCloudPaymentsDelivery({
      payload: { TransactionId: 1, InvoiceId: 'заказ 42', DateTime: '2024-05-12 18:14:14' },
      apiSecret: SECRET,
    });
    expect(sent.body).toBe(
      'TransactionId=1&InvoiceId=%D0%B7%D0%B0%D0%BA%D0%B0%D0%B7+42&DateTime=2024-05-12+18%3A14%3A14',
    );
    expect(sent.headers).toEqual({
      'content-type': 'application/x-www-form-urlencoded',
      'content-hmac': hmac(sent.body),
      'x-content-hmac': hmac('TransactionId=1&InvoiceId=заказ 42&DateTime=2024-05-12 18:14:14'),
    });
    expect(sent).toMatchObject({ provider: 'cloudpayments', method: 'POST' });
  });

  it('posts JSON with both headers over the body', () => {
    const payload = cloudPaymentsFixtures.pay();
    const sent = signCloudPaymentsDelivery({ payload, apiSecret: SECRET, format: 'json' });
    expect(JSON.parse(sent.body)).toEqual(payload);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.headers['content-hmac']).toBe(hmac(sent.body));
    expect(sent.headers['x-content-hmac']).toBe(hmac(sent.body));
  });

  it('names the key the endpoint of its notification stores it under, given the notification', async () => {
    const payload = cloudPaymentsFixtures.pay({ invoiceId: 'order-42', amount: 1999 });
    const delivery = signCloudPaymentsDelivery({ payload, apiSecret: SECRET, notification: 'pay' });
    const endpoint = cloudPaymentsEndpoint({
      name: 'cloudpayments',
      apiSecret: SECRET,
      notification: 'pay',
    });
    expect(await storedEventIds(endpoint, delivery)).toEqual([delivery.eventId]);
    expect(delivery.eventId).toBe(`pay:${payload.TransactionId}:Payment:Completed`);
    expect(signCloudPaymentsDelivery({ payload, apiSecret: SECRET }).eventId).toBeUndefined();
  });
});

describe('cloudPaymentsFixtures', () => {
  it('writes amounts and times as CloudPayments does', () => {
    const pay = cloudPaymentsFixtures.pay({
      amount: 1999,
      dateTime: new Date('2024-05-12T18:14:14.123Z'),
    });
    expect(pay).toMatchObject({
      Amount: '19.99',
      Currency: 'RUB',
      DateTime: '2024-05-12 18:14:14',
    });
    expect(cloudPaymentsFixtures.pay({ amount: 1250, currency: 'KWD' }).Amount).toBe('1.250');
  });

  it('gives a refund its own transaction id and the refunded payment', () => {
    const refund = cloudPaymentsFixtures.refund({ paymentTransactionId: 42 });
    expect(refund).toMatchObject({ PaymentTransactionId: 42, OperationType: 'Refund' });
    expect(refund.TransactionId).not.toBe(42);
    expect(refund).not.toHaveProperty('Currency');
  });
});
