import { kit } from '../../../test/providers/checkout-com.kit';
import { notificationsOf } from '../notifications';
import { SignedDelivery } from '../signed-delivery';
import { InboundWebhook } from '../webhook-provider.interface';
import { rejection } from '../../../test/support/rejection';

function inbound(delivery: SignedDelivery): InboundWebhook {
  return { rawBody: Buffer.from(delivery.body), headers: delivery.headers, receivedAt: new Date() };
}

describe('the Checkout.com test kit', () => {
  const provider = kit.endpoint('kit').provider;

  it('signs a paid order the endpoint accepts and reads as the kit expects', () => {
    const { delivery, expected } = kit.paid('order-kit-1');
    expect(() => provider.verify(inbound(delivery))).not.toThrow();
    expect(notificationsOf(provider.normalize(inbound(delivery)))[0]).toMatchObject(expected);
    expect(kit.paid('order-kit-1').expected.eventId).not.toBe(expected.eventId);
  });

  it('tampers a delivery the endpoint refuses, and the wrong secret refuses a genuine one', () => {
    const tampered = kit.tampered?.('order-kit-2');
    expect(tampered).toBeDefined();
    expect(rejection(() => provider.verify(inbound(tampered!)))).toMatchObject({
      reason: 'bad_signature',
    });
    const wrong = kit.endpoint('kit', 'wrong').provider;
    expect(rejection(() => wrong.verify(inbound(kit.paid('order-kit-3').delivery)))).toMatchObject({
      reason: 'bad_signature',
    });
  });

  it('builds poison deliveries the endpoint accepts, keyed as expected', () => {
    const values = {
      id: 'i\u0000d',
      type: 'captured',
      paymentRef: 'p\uD800',
      merchantRef: 'm😀',
      currency: ' eur ',
      status: 's\u2028',
      headerId: 'h',
    };
    const { delivery, expected } = kit.poison.build(values, 'n1');
    expect(() => provider.verify(inbound(delivery))).not.toThrow();
    expect(notificationsOf(provider.normalize(inbound(delivery)))[0]).toMatchObject(expected[0]);
  });
});
