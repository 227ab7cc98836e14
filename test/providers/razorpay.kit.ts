import { createHmac, randomBytes } from 'node:crypto';
import { razorpayEndpoint } from 'nestjs-payment-webhooks';
import { currencyOf, jsonDelivery, ProviderKit, tamperedWith } from './provider-kit';

const SECRET = 'razorpay-provider-kit-secret';

/** An `order.paid` event of `orderId` as Razorpay sends it: the order's receipt is the order id. */
function orderPaidEvent(orderId: string) {
  const suffix = randomBytes(7).toString('hex');
  const createdAt = Math.floor(Date.now() / 1000);
  return {
    entity: 'event',
    account_id: 'acc_KitAccount0001',
    event: 'order.paid',
    contains: ['payment', 'order'],
    payload: {
      payment: {
        entity: {
          id: `pay_${suffix}`,
          entity: 'payment',
          amount: 1999,
          currency: 'INR',
          status: 'captured',
          order_id: `order_${suffix}`,
          method: 'upi',
          captured: true,
          notes: [],
          created_at: createdAt - 5,
        },
      },
      order: {
        entity: {
          id: `order_${suffix}`,
          entity: 'order',
          amount: 1999,
          amount_paid: 1999,
          amount_due: 0,
          currency: 'INR',
          receipt: orderId,
          status: 'paid',
          attempts: 1,
          notes: [],
          created_at: createdAt - 60,
        },
      },
    },
    created_at: createdAt,
  };
}

/** The headers Razorpay sends: the documented hex HMAC-SHA256 of the body, an unsigned event id. */
function razorpayHeaders(body: string): Record<string, string> {
  return {
    'x-razorpay-signature': createHmac('sha256', SECRET).update(body).digest('hex'),
    'x-razorpay-event-id': randomBytes(7).toString('hex'),
  };
}

/**
 * Razorpay, signed with node:crypto as Razorpay documents (`X-Razorpay-Signature`, hex
 * HMAC-SHA256 of the raw body); the kit spec checks it with the SDK's `validateWebhookSignature`.
 */
export const kit: ProviderKit = {
  kind: 'razorpay',
  signedBy: 'node:crypto (documented scheme, checked by the razorpay SDK)',
  answer: { status: 200, body: '' },
  endpoint: (name, secrets = 'right') =>
    razorpayEndpoint({
      name,
      secret: secrets === 'right' ? SECRET : 'razorpay-provider-kit-other',
    }),
  paid(orderId) {
    const event = orderPaidEvent(orderId);
    const body = JSON.stringify(event);
    const order = event.payload.order.entity;
    return {
      delivery: jsonDelivery('razorpay', body, razorpayHeaders(body)),
      expected: {
        eventId: `order.paid:${order.id}:${event.created_at}`,
        type: 'payment.succeeded',
        paymentRef: event.payload.payment.entity.id,
        merchantRef: orderId,
        amount: 1999,
        currency: 'INR',
      },
    };
  },
  tampered(orderId) {
    return tamperedWith(this.paid(orderId).delivery, '"amount":1999', '"amount":1');
  },
  poison: {
    build(v, n) {
      const paymentId = `${n}_${v.paymentRef}`;
      const createdAt = Math.floor(Date.now() / 1000);
      const nativeType = `payment.${v.type}`;
      const body = JSON.stringify({
        entity: 'event',
        account_id: `acc_${v.id}`,
        event: nativeType,
        contains: ['payment'],
        payload: {
          payment: {
            entity: {
              id: paymentId,
              entity: 'payment',
              amount: 1999,
              currency: v.currency,
              status: v.status,
              notes: { orderId: v.merchantRef },
              created_at: createdAt,
            },
          },
        },
        created_at: createdAt,
      });
      return {
        delivery: jsonDelivery('razorpay', body, razorpayHeaders(body)),
        expected: [
          {
            eventId: `${nativeType}:${paymentId}:${createdAt}`,
            nativeType,
            paymentRef: paymentId,
            merchantRef: v.merchantRef,
            currency: currencyOf(v.currency),
            status: v.status,
          },
        ],
      };
    },
  },
  cli: {
    flags: ['--secret', SECRET],
    payload: (orderId) => orderPaidEvent(orderId),
    expected: (orderId) => ({
      type: 'payment.succeeded',
      merchantRef: orderId,
      amount: 1999,
      currency: 'INR',
    }),
  },
};
