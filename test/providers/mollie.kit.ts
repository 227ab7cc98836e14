import { createHmac } from 'node:crypto';
import type { SignedDelivery } from 'nestjs-payment-webhooks/testing';
import { mollieEndpoint } from 'nestjs-payment-webhooks';
import { mollieFixtures } from 'nestjs-payment-webhooks/testing';
import { currencyOf, jsonDelivery, ProviderKit, tamperedWith } from './provider-kit';

const SECRET = 'mollie_kit_signing_secret_Hq7Vd2Lx9Wm4';
const OTHER_SECRET = 'mollie_kit_signing_secret_Zt3Ka8Pw1Rn6';

/** A next-gen delivery: `X-Mollie-Signature: sha256=<hex HMAC-SHA256 of the body>`. */
function signed(payload: object): SignedDelivery {
  const body = JSON.stringify(payload);
  const signature = createHmac('sha256', SECRET).update(body).digest('hex');
  return jsonDelivery('mollie', body, { 'x-mollie-signature': `sha256=${signature}` });
}

/**
 * Mollie, with next-gen webhooks signed by node:crypto after Mollie's documented scheme (the
 * official Node SDK has no webhook helper). Classic webhooks need the Mollie API, which the
 * kit's endpoints do not have: lib/providers/mollie/mollie-api.spec.ts takes them against a fake.
 */
export const kit: ProviderKit = {
  kind: 'mollie',
  signedBy: 'node:crypto (documented scheme)',
  answer: { status: 200, body: '' },
  endpoint: (name, secrets = 'right') =>
    mollieEndpoint({ name, signingSecret: secrets === 'right' ? SECRET : OTHER_SECRET }),
  paid(orderId) {
    const payload = mollieFixtures.paymentEvent('payment.paid', { orderId, amount: 1999 });
    return {
      delivery: signed(payload),
      expected: {
        eventId: payload.id,
        type: 'payment.succeeded',
        paymentRef: payload.entityId,
        merchantRef: orderId,
        amount: 1999,
        currency: 'EUR',
      },
    };
  },
  tampered(orderId) {
    return tamperedWith(this.paid(orderId).delivery, orderId, `${orderId}x`);
  },
  poison: {
    build(v, n) {
      const event = mollieFixtures.paymentEvent('payment.paid', { orderId: v.merchantRef });
      const eventId = `event_${n}_${v.id}`;
      const entity = event._embedded?.entity ?? {};
      const payload = {
        ...event,
        id: eventId,
        type: `payment.${v.type}`,
        entityId: v.paymentRef,
        _embedded: {
          entity: {
            ...entity,
            id: v.paymentRef,
            status: v.status,
            amount: { currency: v.currency, value: '19.99' },
            metadata: { order_id: v.merchantRef },
          },
        },
      };
      return {
        delivery: signed(payload),
        expected: [
          {
            eventId,
            nativeType: `payment.${v.type}`,
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
    payload: (orderId) => mollieFixtures.paymentEvent('payment.paid', { orderId, amount: 1999 }),
    expected: (orderId) => ({
      type: 'payment.succeeded',
      merchantRef: orderId,
      amount: 1999,
      currency: 'EUR',
    }),
  },
};
