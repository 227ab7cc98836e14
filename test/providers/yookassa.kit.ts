import { randomUUID } from 'node:crypto';
import { yookassaEndpoint } from 'nestjs-payment-webhooks';
import { yookassaDelivery, yookassaPayment } from 'nestjs-payment-webhooks/testing';
import { ProviderKit } from './provider-kit';

/** Where the suites send from. */
const LOOPBACK = ['127.0.0.1', '::1', '::ffff:127.0.0.1'];

/** A succeeded payment of `orderId`, 19.99 RUB. */
const payment = (orderId: string) =>
  yookassaPayment('succeeded', {
    id: randomUUID(),
    amount: { value: '19.99', currency: 'RUB' },
    metadata: { orderId },
  });

/**
 * YooKassa signs nothing: its source address vouches for a notification (and the API, which
 * the kit's endpoint does not ask). "Another secret" is a source the endpoint does not allow.
 */
export const kit: ProviderKit = {
  kind: 'yookassa',
  signedBy: 'nothing: source addresses',
  answer: { status: 200, body: '' },
  refusedStatus: 403,
  endpoint: (name, secrets = 'right') =>
    yookassaEndpoint({
      name,
      verifyWithProvider: false,
      allowedIps: secrets === 'right' ? LOOPBACK : ['192.0.2.1'],
    }),
  paid(orderId) {
    const object = payment(orderId);
    return {
      delivery: yookassaDelivery({ event: 'payment.succeeded', object }),
      expected: {
        eventId: `payment.succeeded:${object.id}`,
        type: 'payment.succeeded',
        paymentRef: object.id,
        merchantRef: orderId,
        amount: 1999,
        currency: 'RUB',
      },
    };
  },
  poison: {
    build(v, n) {
      const id = `${n}_${v.paymentRef}`;
      const event = `payment.${v.type}`;
      const object = yookassaPayment('succeeded', { id, metadata: { orderId: v.merchantRef } });
      return {
        delivery: yookassaDelivery({ event, object: { ...object, status: v.status } }),
        expected: [
          {
            eventId: `${event}:${id}`,
            nativeType: event,
            paymentRef: id,
            merchantRef: v.merchantRef,
            currency: 'RUB',
            status: v.status,
          },
        ],
      };
    },
  },
  cli: {
    flags: [],
    payload: (orderId) => ({
      type: 'notification',
      event: 'payment.succeeded',
      object: payment(orderId),
    }),
    expected: (orderId) => ({ type: 'payment.succeeded', merchantRef: orderId }),
  },
};
