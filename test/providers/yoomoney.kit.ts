import { randomInt } from 'node:crypto';
import { yoomoneyEndpoint } from 'nestjs-payment-webhooks';
import { signYooMoneyDelivery, yoomoneyFixtures } from 'nestjs-payment-webhooks/testing';
import { ProviderKit, tamperedWith } from './provider-kit';

const SECRET = 'yoomoney-provider-kit-secret';

const operationId = () => String(randomInt(100_000_000_000, 999_999_999_999));

/**
 * YooMoney, with the package's `signYooMoneyDelivery` (its spec reproduces the `sha1_hash` of
 * YooMoney's documented example).
 */
export const kit: ProviderKit = {
  kind: 'yoomoney',
  signedBy: 'sha1_hash as documented',
  answer: { status: 200, body: '' },
  endpoint: (name, secrets = 'right') =>
    yoomoneyEndpoint({
      name,
      notificationSecret: secrets === 'right' ? SECRET : 'yoomoney-provider-kit-other',
    }),
  paid(orderId) {
    const id = operationId();
    const payload = yoomoneyFixtures.p2pIncoming({
      label: orderId,
      amount: '19.99',
      operationId: id,
    });
    return {
      delivery: signYooMoneyDelivery({ notificationSecret: SECRET, payload }),
      expected: {
        eventId: id,
        type: 'payment.succeeded',
        paymentRef: id,
        merchantRef: orderId,
        currency: 'RUB',
      },
    };
  },
  tampered(orderId) {
    return tamperedWith(this.paid(orderId).delivery, `label=${orderId}`, 'label=x');
  },
  poison: {
    form: true,
    build(v, n) {
      const id = `${n}_${v.paymentRef}`;
      const payload = {
        ...yoomoneyFixtures.p2pIncoming({ label: v.merchantRef, operationId: id }),
        notification_type: v.type,
      };
      return {
        delivery: signYooMoneyDelivery({ notificationSecret: SECRET, payload }),
        expected: [
          {
            eventId: id,
            nativeType: v.type,
            paymentRef: id,
            merchantRef: v.merchantRef,
            currency: 'RUB',
          },
        ],
      };
    },
  },
  cli: {
    flags: ['--secret', SECRET],
    payload: (orderId) =>
      yoomoneyFixtures.p2pIncoming({ label: orderId, operationId: operationId() }),
    expected: (orderId) => ({ type: 'payment.succeeded', merchantRef: orderId }),
  },
};
