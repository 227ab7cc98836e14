import { randomUUID } from 'node:crypto';
import { sberEndpoint } from 'nestjs-payment-webhooks';
import { sberFixtures, signSberDelivery } from 'nestjs-payment-webhooks/testing';
import { ProviderKit, tamperedWith } from './provider-kit';

const TOKEN = 'sber-provider-kit-token';

/**
 * Sber callbacks with a checksum, with the package's `signSberDelivery` (its spec reproduces the
 * checksum of Sber's documented example).
 */
export const kit: ProviderKit = {
  kind: 'sber',
  signedBy: 'checksum as documented',
  answer: { status: 200, body: '' },
  endpoint: (name, secrets = 'right') =>
    sberEndpoint({ name, callbackToken: secrets === 'right' ? TOKEN : 'sber-provider-kit-other' }),
  paid(orderId) {
    const mdOrder = randomUUID();
    const payload = sberFixtures.deposited({ orderNumber: orderId, mdOrder, amount: 1999 });
    return {
      delivery: signSberDelivery({ callbackToken: TOKEN, payload, method: 'GET' }),
      expected: {
        eventId: `${mdOrder}:deposited:1`,
        type: 'payment.succeeded',
        paymentRef: mdOrder,
        merchantRef: orderId,
        amount: 1999,
      },
    };
  },
  tampered(orderId) {
    return tamperedWith(this.paid(orderId).delivery, `orderNumber=${orderId}`, 'orderNumber=x');
  },
  poison: {
    form: true,
    build(v, n) {
      const mdOrder = `${n}_${v.paymentRef}`;
      const payload = sberFixtures.callback(v.type, { orderNumber: v.merchantRef, mdOrder });
      const get = signSberDelivery({ callbackToken: TOKEN, payload, method: 'GET' });
      // NOTE: a query string longer than an HTTP server takes in its request line (16 KiB for
      // Node's) comes as a form POST instead.
      const delivery =
        get.body.length < 8_000
          ? get
          : signSberDelivery({ callbackToken: TOKEN, payload, method: 'POST' });
      return {
        delivery,
        expected: [
          {
            eventId: `${mdOrder}:${v.type}:1`,
            nativeType: v.type,
            paymentRef: mdOrder,
            merchantRef: v.merchantRef,
            status: '1',
          },
        ],
      };
    },
  },
  cli: {
    flags: ['--secret', TOKEN],
    payload: (orderId) => sberFixtures.deposited({ orderNumber: orderId, amount: 19200 }),
    expected: (orderId) => ({ type: 'payment.succeeded', merchantRef: orderId }),
  },
};
