import { createHmac } from 'node:crypto';
import { paystackFixtures } from './paystack.fixtures';
import { signPaystackDelivery } from './paystack.signer';
import { paystackEndpoint } from './paystack.provider';
import { storedEventIds } from '../../spec-support/stored-event-ids';

const KEY = 'sk_test_4f9c2a7e1b8d3f6a0c5e9b2d7a4f1c8e3b6d0a9f';

describe('signPaystackDelivery', () => {
  // NOTE: Paystack publishes no SDK and no vector with its key; the check is its documented
  // scheme computed here with node:crypto, apart from the package's code.
  it('makes the hex HMAC-SHA512 of the body under the secret key, as Paystack documents', () => {
    const delivery = signPaystackDelivery({
      payload: paystackFixtures.chargeSuccess({ reference: 'order-42' }),
      secretKey: KEY,
    });
    expect(delivery.headers['x-paystack-signature']).toBe(
      createHmac('sha512', KEY).update(delivery.body, 'utf8').digest('hex'),
    );
    expect(delivery).toMatchObject({
      provider: 'paystack',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(JSON.parse(delivery.body)).toMatchObject({ event: 'charge.success' });
  });

  it('signs a string payload byte for byte', () => {
    const payload = '{"event":"charge.success",  "data":{"id":1}}';
    const delivery = signPaystackDelivery({ payload, secretKey: KEY });
    expect(delivery.body).toBe(payload);
    expect(delivery.headers['x-paystack-signature']).toBe(
      createHmac('sha512', KEY).update(payload).digest('hex'),
    );
  });

  it('names the key a Paystack endpoint makes from the signed event', async () => {
    const payload = paystackFixtures.chargeSuccess({ reference: 'order-42' });
    const delivery = signPaystackDelivery({ payload, secretKey: KEY });
    const endpoint = paystackEndpoint({ name: 'paystack', secretKey: KEY });
    expect(await storedEventIds(endpoint, delivery)).toEqual([delivery.eventId]);
    expect(delivery.eventId).toBe(`charge.success:${payload.data.id}:success`);
  });
});

describe('paystackFixtures', () => {
  it('builds a charge with the reference as the order id, in kobo by default', () => {
    const event = paystackFixtures.chargeSuccess({ reference: 'order-42' });
    expect(event.data).toMatchObject({
      status: 'success',
      reference: 'order-42',
      amount: 500000,
      currency: 'NGN',
    });
    expect(event.data.id).toEqual(expect.any(Number));
  });

  it('builds refunds and disputes about the given charge', () => {
    const refund = paystackFixtures.refundProcessed({ reference: 'order-42', amount: 1000 });
    expect(refund.data).toMatchObject({ transaction_reference: 'order-42', amount: 1000 });
    const dispute = paystackFixtures.disputeResolve({ transactionId: 42, reference: 'order-42' });
    expect(dispute.data).toMatchObject({
      status: 'resolved',
      transaction: { id: 42, reference: 'order-42' },
    });
  });
});
