import { validateWebhookSignature } from 'razorpay/dist/utils/razorpay-utils';
import { kit } from '../../../test/providers/razorpay.kit';
import { rejection } from '../../../test/support/rejection';
import { notificationsOf } from '../notifications';
import { SignedDelivery } from '../signed-delivery';
import { InboundWebhook } from '../webhook-provider.interface';

function inbound(delivery: SignedDelivery): InboundWebhook {
  return {
    rawBody: Buffer.from(delivery.body, 'utf8'),
    headers: delivery.headers,
    receivedAt: new Date(),
  };
}

// NOTE: the shared suites rely on the kit; these prove it before they use it.
describe('the Razorpay provider kit', () => {
  const endpoint = kit.endpoint('razorpay');

  it('signs paid() as the official SDK checks it, and the endpoint reads what it expects', () => {
    const { delivery, expected } = kit.paid('order-kit-1');
    const secret = 'razorpay-provider-kit-secret';
    expect(
      validateWebhookSignature(delivery.body, delivery.headers['x-razorpay-signature'], secret),
    ).toBe(true);
    expect(() => endpoint.provider.verify(inbound(delivery))).not.toThrow();
    expect(notificationsOf(endpoint.provider.normalize(inbound(delivery)))[0]).toMatchObject(
      expected,
    );
  });

  it('gives every paid() its own event id', () => {
    expect(kit.paid('order-kit-1').expected.eventId).not.toBe(
      kit.paid('order-kit-1').expected.eventId,
    );
  });

  it('has tampered() refused by the endpoint', () => {
    expect(
      rejection(() => endpoint.provider.verify(inbound(kit.tampered!('order-kit-2')))),
    ).toMatchObject({
      reason: 'bad_signature',
    });
  });

  it('has the wrong-secret endpoint refuse a genuine delivery', () => {
    const wrong = kit.endpoint('razorpay-wrong', 'wrong');
    expect(
      rejection(() => wrong.provider.verify(inbound(kit.paid('order-kit-3').delivery))),
    ).toMatchObject({
      reason: 'bad_signature',
    });
  });

  it('builds poison deliveries the endpoint accepts and reads as expected', () => {
    const values = {
      id: 'v\u0000x',
      type: 'v.dispute.\uD800',
      paymentRef: 'p'.repeat(300),
      merchantRef: 'm\u2028',
      currency: ' inr ',
      status: 's\u0007',
      headerId: 'h',
    };
    const { delivery, expected } = kit.poison.build(values, 'n1');
    endpoint.provider.verify(inbound(delivery));
    expect(notificationsOf(endpoint.provider.normalize(inbound(delivery)))[0]).toMatchObject(
      expected[0],
    );
  });
});
