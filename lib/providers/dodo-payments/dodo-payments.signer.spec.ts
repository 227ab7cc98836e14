import DodoPayments from 'dodopayments';
import { dodoPaymentsFixtures } from './dodo-payments.fixtures';
import { signDodoPaymentsDelivery } from './dodo-payments.signer';
import { dodoPaymentsEndpoint } from './dodo-payments.provider';
import { storedEventIds } from '../../spec-support/stored-event-ids';

const SECRET = `whsec_${Buffer.alloc(24, 0x4d).toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(24, 0x4e).toString('base64')}`;

// NOTE: the SDK client is only asked to unwrap; it sends no request, so any API key will do.
const dodo = new DodoPayments({ bearerToken: 'sk_test_unused', webhookKey: SECRET });

describe('signDodoPaymentsDelivery', () => {
  it('signs deliveries that the Dodo Payments SDK’s webhooks.unwrap accepts', () => {
    for (const payload of [
      dodoPaymentsFixtures.paymentSucceeded({ orderId: 'order-42', amount: 1999 }),
      dodoPaymentsFixtures.paymentFailed(),
      dodoPaymentsFixtures.refundSucceeded(),
      dodoPaymentsFixtures.disputeOpened(),
      dodoPaymentsFixtures.disputeUpdated('won'),
    ]) {
      const delivery = signDodoPaymentsDelivery({ payload, secret: SECRET });
      expect(dodo.webhooks.unwrap(delivery.body, { headers: { ...delivery.headers } })).toEqual(
        payload,
      );
    }
  });

  it('is refused by unwrap under another key or with a changed body', () => {
    const delivery = signDodoPaymentsDelivery({
      payload: dodoPaymentsFixtures.paymentSucceeded(),
      secret: SECRET,
    });
    const headers = { ...delivery.headers };
    expect(() => dodo.webhooks.unwrap(delivery.body, { headers, key: OTHER })).toThrow(
      /No matching signature/,
    );
    const changed = delivery.body.replace('"total_amount":1999', '"total_amount":1');
    expect(changed).not.toBe(delivery.body);
    expect(() => dodo.webhooks.unwrap(changed, { headers })).toThrow(/No matching signature/);
  });

  it('sends JSON under the dodo-payments kind with the id given, or a fresh msg_ id', () => {
    const delivery = signDodoPaymentsDelivery({ payload: '{}', secret: SECRET, id: 'msg_7' });
    expect(delivery).toMatchObject({
      provider: 'dodo-payments',
      method: 'POST',
      eventId: 'msg_7',
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_7' },
    });
    expect(signDodoPaymentsDelivery({ payload: '{}', secret: SECRET }).eventId).toMatch(
      /^msg_[0-9a-f]{32}$/,
    );
  });

  it('refuses a secret that is not whsec_ + base64', () => {
    expect(() => signDodoPaymentsDelivery({ payload: '{}', secret: 'whsec_%%' })).toThrow();
  });

  it('names the webhook-id a Dodo Payments endpoint stores the event under', async () => {
    const delivery = signDodoPaymentsDelivery({
      payload: dodoPaymentsFixtures.paymentSucceeded({ orderId: 'order-42' }),
      secret: SECRET,
      id: 'msg_dodo_signer_1',
    });
    const endpoint = dodoPaymentsEndpoint({ name: 'dodo', secret: SECRET });
    expect(await storedEventIds(endpoint, delivery)).toEqual(['msg_dodo_signer_1']);
    expect(delivery.eventId).toBe('msg_dodo_signer_1');
  });
});

describe('dodoPaymentsFixtures', () => {
  it('carries the shop’s order id in metadata and the amount in minor units', () => {
    const event = dodoPaymentsFixtures.paymentSucceeded({ orderId: 'order-42', amount: 1999 });
    expect(event).toMatchObject({
      type: 'payment.succeeded',
      data: {
        payload_type: 'Payment',
        total_amount: 1999,
        currency: 'USD',
        status: 'succeeded',
        metadata: { orderId: 'order-42' },
      },
    });
    expect(event.data.payment_id).toMatch(/^pay_[A-Za-z0-9]{21}$/);
  });

  it('writes a dispute’s amount as a string, as Dodo does', () => {
    const dispute = dodoPaymentsFixtures.disputeUpdated('lost', { amount: 1999 });
    expect(dispute.data).toMatchObject({ amount: '1999', dispute_status: 'dispute_lost' });
  });
});
