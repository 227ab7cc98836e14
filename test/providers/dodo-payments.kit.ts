import { randomUUID } from 'node:crypto';
import { dodoPaymentsEndpoint } from 'nestjs-payment-webhooks';
import { dodoPaymentsFixtures } from 'nestjs-payment-webhooks/testing';
import { standardWebhooksHeaders } from '../support/standard-webhooks-delivery';
import { currencyOf, jsonDelivery, ProviderKit, tamperedWith } from './provider-kit';

const SECRET = `whsec_${Buffer.from('dodo-payments-provider-kit-key').toString('base64')}`;
const OTHER = `whsec_${Buffer.from('dodo-payments-provider-kit-other').toString('base64')}`;

/**
 * An event signed by the official `standardwebhooks` library, the one the `dodopayments` SDK's
 * `webhooks.unwrap` verifies with.
 */
function signed(event: object, id = `msg_${randomUUID().replace(/-/g, '')}`) {
  const body = JSON.stringify(event);
  const headers = standardWebhooksHeaders(SECRET, id, body);
  return { id, delivery: jsonDelivery('dodo-payments', body, headers) };
}

/** Dodo Payments, signed by the official `standardwebhooks` library. */
export const kit: ProviderKit = {
  kind: 'dodo-payments',
  signedBy: 'standardwebhooks library',
  answer: { status: 200, body: '' },
  endpoint: (name, secrets = 'right') =>
    dodoPaymentsEndpoint({ name, secret: secrets === 'right' ? SECRET : OTHER }),
  paid(orderId) {
    const event = dodoPaymentsFixtures.paymentSucceeded({ orderId, amount: 1999, currency: 'USD' });
    const { id, delivery } = signed(event);
    return {
      delivery,
      expected: {
        eventId: id,
        type: 'payment.succeeded',
        paymentRef: event.data.payment_id as string,
        merchantRef: orderId,
        amount: 1999,
        currency: 'USD',
      },
    };
  },
  tampered(orderId) {
    return tamperedWith(this.paid(orderId).delivery, '"total_amount":1999', '"total_amount":1');
  },
  poison: {
    build(v, n) {
      const event = dodoPaymentsFixtures.paymentSucceeded({ orderId: v.merchantRef });
      const type = `payment.${v.type}`;
      const payload = {
        ...event,
        type,
        data: { ...event.data, payment_id: v.paymentRef, currency: v.currency, status: v.status },
      };
      const { id, delivery } = signed(payload, `msg_${n}_${v.headerId}`);
      return {
        delivery,
        expected: [
          {
            eventId: id,
            nativeType: type,
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
    payload: (orderId) => dodoPaymentsFixtures.paymentSucceeded({ orderId, amount: 1999 }),
    expected: (orderId) => ({
      type: 'payment.succeeded',
      merchantRef: orderId,
      amount: 1999,
      currency: 'USD',
    }),
  },
};
