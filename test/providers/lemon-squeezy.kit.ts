import { createHmac, randomInt } from 'node:crypto';
import { lemonSqueezyEndpoint } from 'nestjs-payment-webhooks';
import { currencyOf, jsonDelivery, ProviderKit, tamperedWith } from './provider-kit';

const SECRET = 'kit-lemon-squeezy-signing-secret';
const OTHER = 'kit-lemon-squeezy-another-secret';

/** Lemon Squeezy's `X-Signature`: hex HMAC-SHA256 of the body with the signing secret. */
const signature = (body: string) => createHmac('sha256', SECRET).update(body).digest('hex');

/** A paid `order_created` for `orderId` as Lemon Squeezy posts it, and its documented key parts. */
function orderCreated(orderId: string) {
  const id = String(randomInt(1_000_000, 2 ** 47));
  const at = new Date().toISOString().replace('Z', '000Z');
  const event = {
    meta: { test_mode: true, event_name: 'order_created', custom_data: { order_id: orderId } },
    data: {
      type: 'orders',
      id,
      attributes: {
        store_id: 48211,
        customer_id: 3198245,
        order_number: Number(id) % 100_000,
        currency: 'USD',
        subtotal: 1666,
        tax: 333,
        total: 1999,
        refunded_amount: 0,
        total_formatted: '$19.99',
        status: 'paid',
        refunded: false,
        created_at: at,
        updated_at: at,
        test_mode: true,
      },
    },
  };
  return { event, eventId: `order_created:orders:${id}:paid:0:${at}`, id };
}

/** Lemon Squeezy, signed with node:crypto following its documented scheme. */
export const kit: ProviderKit = {
  kind: 'lemon-squeezy',
  signedBy: 'node:crypto (documented scheme)',
  answer: { status: 200, body: '' },
  endpoint: (name, secrets = 'right') =>
    lemonSqueezyEndpoint({ name, signingSecret: secrets === 'right' ? SECRET : OTHER }),
  paid(orderId) {
    const { event, eventId, id } = orderCreated(orderId);
    const body = JSON.stringify(event);
    return {
      delivery: jsonDelivery('lemon-squeezy', body, {
        'x-event-name': 'order_created',
        'x-signature': signature(body),
      }),
      expected: {
        eventId,
        type: 'payment.succeeded',
        paymentRef: id,
        merchantRef: orderId,
        amount: 1999,
        currency: 'USD',
      },
    };
  },
  tampered(orderId) {
    return tamperedWith(this.paid(orderId).delivery, '"total":1999', '"total":1');
  },
  poison: {
    build(v, n) {
      const stamp = `${n}_${v.id}`;
      const body = JSON.stringify({
        meta: { event_name: v.type, custom_data: { order_id: v.merchantRef } },
        data: {
          type: 'orders',
          id: v.paymentRef,
          attributes: { currency: v.currency, status: v.status, total: 500, updated_at: stamp },
        },
      });
      return {
        delivery: jsonDelivery('lemon-squeezy', body, { 'x-signature': signature(body) }),
        expected: [
          {
            eventId: `${v.type}:orders:${v.paymentRef}:${v.status}:${stamp}`,
            nativeType: v.type,
            paymentRef: v.paymentRef,
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
    payload: (orderId) => orderCreated(orderId).event,
    expected: (orderId) => ({
      type: 'payment.succeeded',
      merchantRef: orderId,
      amount: 1999,
      currency: 'USD',
    }),
  },
};
