import { randomBytes } from 'node:crypto';
import { adyenEndpoint } from 'nestjs-payment-webhooks';
import { adyenNotificationItem } from 'nestjs-payment-webhooks/testing';
import { signedAdyenBody } from '../support/adyen-delivery';
import { currencyOf, jsonDelivery, ProviderKit, tamperedWith } from './provider-kit';

const HMAC_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
const OTHER_KEY = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';

const pspReference = () => randomBytes(8).toString('hex').toUpperCase();

/** A capture of `orderId`, as Adyen sends it. */
const capture = (orderId: string) =>
  adyenNotificationItem('CAPTURE', {
    merchantReference: orderId,
    pspReference: pspReference(),
    originalReference: pspReference(),
    amount: { currency: 'EUR', value: 1999 },
  });

/** Adyen, each item signed by the official library's `hmacValidator.calculateHmac`. */
export const kit: ProviderKit = {
  kind: 'adyen',
  signedBy: '@adyen/api-library',
  answer: { status: 200, body: '[accepted]' },
  endpoint: (name, secrets = 'right') =>
    adyenEndpoint({ name, hmacKey: secrets === 'right' ? HMAC_KEY : OTHER_KEY }),
  paid(orderId) {
    const item = capture(orderId);
    return {
      delivery: jsonDelivery('adyen', signedAdyenBody(HMAC_KEY, [item]), {}),
      expected: {
        eventId: `${item.pspReference}:CAPTURE:true`,
        type: 'payment.succeeded',
        paymentRef: item.originalReference,
        merchantRef: orderId,
        amount: 1999,
        currency: 'EUR',
      },
    };
  },
  tampered(orderId) {
    return tamperedWith(this.paid(orderId).delivery, '"value":1999', '"value":1');
  },
  poison: {
    // NOTE: a batch: a plain item, then one carrying the values.
    build(v, n) {
      const good = adyenNotificationItem('CAPTURE', {
        pspReference: `good-${n}`,
        originalReference: `orig-${n}`,
        merchantReference: `order-${n}`,
      });
      const bad = adyenNotificationItem('CAPTURE', {
        pspReference: `${n}_${v.id}`,
        originalReference: v.paymentRef,
        merchantReference: v.merchantRef,
        eventCode: v.type,
        amount: { currency: v.currency, value: 1130 },
      });
      return {
        delivery: jsonDelivery('adyen', signedAdyenBody(HMAC_KEY, [good, bad]), {}),
        expected: [
          { eventId: `good-${n}:CAPTURE:true`, merchantRef: `order-${n}` },
          {
            eventId: `${n}_${v.id}:${v.type}:true`,
            nativeType: v.type,
            paymentRef: v.paymentRef,
            merchantRef: v.merchantRef,
            currency: currencyOf(v.currency),
            status: 'true',
          },
        ],
      };
    },
  },
  cli: {
    flags: ['--secret', HMAC_KEY],
    payload: (orderId) => capture(orderId),
    expected: (orderId) => ({ type: 'payment.succeeded', merchantRef: orderId }),
  },
};
