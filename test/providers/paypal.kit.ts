import { randomUUID } from 'node:crypto';
import { paypalEndpoint } from 'nestjs-payment-webhooks';
import {
  PAYPAL_TEST_CA_PEM,
  PAYPAL_TEST_CERTIFICATE_PEM,
  paypalFixtures,
  signPayPalDelivery,
} from 'nestjs-payment-webhooks/testing';
import { currencyOf, ProviderKit, tamperedWith } from './provider-kit';

const WEBHOOK_ID = 'WH-PROVIDER-KIT-0000000000';

/** A capture of `orderId` with a fresh event id. */
function captured(orderId: string) {
  const event = paypalFixtures.captureCompleted({ orderId, amount: 1999 });
  return { ...event, id: `WH-${randomUUID()}` };
}

/**
 * PayPal, signed with the package's `signPayPalDelivery` under a test certificate chain (PayPal
 * publishes no signer; the folder's spec checks the signing string against PayPal's docs).
 */
export const kit: ProviderKit = {
  kind: 'paypal',
  signedBy: 'RSA-SHA256 test certificate as documented',
  answer: { status: 200, body: '' },
  endpoint: (name, secrets = 'right') =>
    paypalEndpoint({
      name,
      webhookId: secrets === 'right' ? WEBHOOK_ID : 'WH-PROVIDER-KIT-OTHER00000',
      certificateResolver: async () => PAYPAL_TEST_CERTIFICATE_PEM,
      trustedRoots: PAYPAL_TEST_CA_PEM,
    }),
  paid(orderId) {
    const payload = captured(orderId);
    return {
      delivery: signPayPalDelivery({ webhookId: WEBHOOK_ID, payload }),
      expected: {
        eventId: payload.id,
        type: 'payment.succeeded',
        merchantRef: orderId,
        amount: 1999,
      },
    };
  },
  tampered(orderId) {
    return tamperedWith(this.paid(orderId).delivery, orderId, `${orderId}x`);
  },
  poison: {
    build(v, n) {
      const event = paypalFixtures.captureCompleted({ orderId: v.merchantRef, amount: 1999 });
      const eventId = `WH-${n}_${v.id}`;
      const payload = {
        ...event,
        id: eventId,
        event_type: `PAYMENT.CAPTURE.${v.type}`,
        resource: {
          ...event.resource,
          id: v.paymentRef,
          status: v.status,
          amount: { currency_code: v.currency, value: '19.99' },
        },
      };
      return {
        delivery: signPayPalDelivery({ webhookId: WEBHOOK_ID, payload }),
        expected: [
          {
            eventId,
            nativeType: `PAYMENT.CAPTURE.${v.type}`,
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
    flags: ['--webhook-id', WEBHOOK_ID],
    payload: (orderId) => captured(orderId),
    expected: (orderId) => ({ type: 'payment.succeeded', merchantRef: orderId }),
  },
};
