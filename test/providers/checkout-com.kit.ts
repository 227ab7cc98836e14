import { createHmac, randomInt } from 'node:crypto';
import { checkoutComEndpoint } from 'nestjs-payment-webhooks';
import { currencyOf, jsonDelivery, ProviderKit, tamperedWith } from './provider-kit';

const SIGNATURE_KEY = 'kit-checkout-com-signature-key';
const OTHER_KEY = 'kit-checkout-com-another-key-00';
const AUTHORIZATION = 'kit-checkout-com-authorization';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
/** An id as Checkout.com forms them: a prefix and 26 base32 characters. */
const ckoId = (prefix: string) =>
  `${prefix}_${Array.from({ length: 26 }, () => BASE32[randomInt(32)]).join('')}`;

/** Checkout.com's `Cko-Signature` (hex HMAC-SHA256 of the body) and the static Authorization. */
const headers = (body: string) => ({
  authorization: AUTHORIZATION,
  'cko-signature': createHmac('sha256', SIGNATURE_KEY).update(body).digest('hex'),
});

/** A payment_captured of `orderId` (the payment's reference) as Checkout.com posts it. */
function captured(orderId: string) {
  const id = ckoId('evt');
  const paymentId = ckoId('pay');
  const event = {
    id,
    type: 'payment_captured',
    version: '1.0.33',
    created_on: new Date().toISOString(),
    data: {
      id: paymentId,
      action_id: ckoId('act'),
      reference: orderId,
      amount: 1999,
      currency: 'EUR',
      processed_on: new Date().toISOString(),
      response_code: '10000',
      response_summary: 'Approved',
    },
  };
  return { event, id, paymentId };
}

/** Checkout.com, signed with node:crypto following its documented scheme. */
export const kit: ProviderKit = {
  kind: 'checkout-com',
  signedBy: 'node:crypto (documented scheme)',
  answer: { status: 200, body: '' },
  endpoint: (name, secrets = 'right') =>
    checkoutComEndpoint({
      name,
      signatureKey: secrets === 'right' ? SIGNATURE_KEY : OTHER_KEY,
      authorization: AUTHORIZATION,
    }),
  paid(orderId) {
    const { event, id, paymentId } = captured(orderId);
    const body = JSON.stringify(event);
    return {
      delivery: jsonDelivery('checkout-com', body, headers(body)),
      expected: {
        eventId: id,
        type: 'payment.succeeded',
        paymentRef: paymentId,
        merchantRef: orderId,
        amount: 1999,
        currency: 'EUR',
      },
    };
  },
  tampered(orderId) {
    return tamperedWith(this.paid(orderId).delivery, '"amount":1999', '"amount":1');
  },
  poison: {
    build(v, n) {
      const eventId = `evt_${n}_${v.id}`;
      const body = JSON.stringify({
        id: eventId,
        type: `payment_${v.type}`,
        created_on: new Date().toISOString(),
        data: {
          id: v.paymentRef,
          reference: v.merchantRef,
          amount: 500,
          currency: v.currency,
          status: v.status,
        },
      });
      return {
        delivery: jsonDelivery('checkout-com', body, headers(body)),
        expected: [
          {
            eventId,
            nativeType: `payment_${v.type}`,
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
    flags: ['--secret', SIGNATURE_KEY, '--authorization', AUTHORIZATION],
    payload: (orderId) => captured(orderId).event,
    expected: (orderId) => ({
      type: 'payment.succeeded',
      merchantRef: orderId,
      amount: 1999,
      currency: 'EUR',
    }),
  },
};
