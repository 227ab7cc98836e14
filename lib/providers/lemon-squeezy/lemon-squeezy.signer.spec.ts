import { createHmac } from 'node:crypto';
import { notificationsOf } from '../notifications';
import { lemonSqueezyFixtures } from './lemon-squeezy.fixtures';
import { lemonSqueezyEndpoint } from './lemon-squeezy.provider';
import { signLemonSqueezyDelivery } from './lemon-squeezy.signer';

const SECRET = 'Wm4sQ8rT2vLx9KpB';

describe('signLemonSqueezyDelivery', () => {
  it('reproduces the known answer for the documented example request', () => {
    const delivery = signLemonSqueezyDelivery({
      payload:
        '{"meta":{"event_name":"order_created","custom_data":{"customer_id":25}},"data":{"type":"orders","id":"1","attributes":{"store_id":1,"customer_id":1,"identifier":"104e18a2-d755-4d4b-80c4-a6c1dcbe1c10","order_number":1,"user_name":"John Doe","user_email":"johndoe@example.com","currency":"USD","currency_rate":"1.0000","subtotal":999,"discount_total":0,"tax":200,"total":1199,"status":"paid","status_formatted":"Paid","refunded":false,"refunded_at":null,"created_at":"2021-08-11T13:47:29.000000Z","updated_at":"2021-08-11T13:47:29.000000Z"}}}',
      signingSecret: 'signing-secret-example',
    });
    expect(delivery.headers['x-signature']).toBe(
      '2004d47393494dfe3437b23d4870dc8516cdbd57657578a1908400fcaa102af7',
    );
    expect(delivery.headers['x-event-name']).toBe('order_created');
  });

  it('makes the headers Lemon Squeezy sends, a signature node:crypto computes', () => {
    const delivery = signLemonSqueezyDelivery({
      payload: lemonSqueezyFixtures.orderRefunded(),
      signingSecret: SECRET,
    });
    expect(delivery).toMatchObject({
      provider: 'lemon-squeezy',
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-event-name': 'order_refunded' },
    });
    expect(delivery.headers['x-signature']).toBe(
      createHmac('sha256', SECRET).update(delivery.body).digest('hex'),
    );
  });

  it('names the dedup key the endpoint stores the event under, and the endpoint accepts it', () => {
    const delivery = signLemonSqueezyDelivery({
      payload: lemonSqueezyFixtures.subscriptionPaymentSuccess({ id: '300512' }),
      signingSecret: SECRET,
    });
    const provider = lemonSqueezyEndpoint({ name: 'ls', signingSecret: SECRET }).provider;
    const request = {
      rawBody: Buffer.from(delivery.body),
      headers: delivery.headers,
      receivedAt: new Date(),
    };
    expect(() => provider.verify(request)).not.toThrow();
    expect(notificationsOf(provider.normalize(request))[0].eventId).toBe(delivery.eventId);
    expect(delivery.eventId).toMatch(
      /^subscription_payment_success:subscription-invoices:300512:paid:0:/,
    );
  });

  it('signs any text, leaving out what it cannot read', () => {
    const delivery = signLemonSqueezyDelivery({ payload: 'not json', signingSecret: SECRET });
    expect(delivery.eventId).toBeUndefined();
    expect(delivery.headers['x-event-name']).toBeUndefined();
    expect(delivery.headers['x-signature']).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('lemonSqueezyFixtures', () => {
  it('builds JSON:API resources with Lemon Squeezy ids and timestamps', () => {
    const event = lemonSqueezyFixtures.orderCreated({ orderId: 'order-42', amount: 1999 });
    expect(event.meta).toEqual({
      test_mode: true,
      event_name: 'order_created',
      custom_data: { order_id: 'order-42' },
    });
    expect(event.data.id).toMatch(/^\d+$/);
    expect(event.data.links.self).toBe(`https://api.lemonsqueezy.com/v1/orders/${event.data.id}`);
    expect(event.data.attributes).toMatchObject({
      total: 1999,
      total_formatted: '$19.99',
      status: 'paid',
      refunded: false,
      currency: 'USD',
    });
    expect(event.data.attributes.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('sums an order: subtotal and tax make the total', () => {
    const { attributes } = lemonSqueezyFixtures.orderCreated({ amount: 1999 }).data;
    expect((attributes.subtotal as number) + (attributes.tax as number)).toBe(1999);
  });

  it('marks refunds refunded, with the amount refunded so far', () => {
    const full = lemonSqueezyFixtures.orderRefunded({ amount: 1999 }).data.attributes;
    expect(full).toMatchObject({ status: 'refunded', refunded: true, refunded_amount: 1999 });
    const invoice = lemonSqueezyFixtures.subscriptionPaymentRefunded({ refundedAmount: 300 });
    expect(invoice.data).toMatchObject({
      type: 'subscription-invoices',
      attributes: { refunded: true, refunded_amount: 300 },
    });
  });
});
