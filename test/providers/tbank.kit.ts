import { randomInt } from 'node:crypto';
import { tbankEndpoint } from 'nestjs-payment-webhooks';
import { signTBankDelivery, tbankFixtures } from 'nestjs-payment-webhooks/testing';
import { ProviderKit, tamperedWith } from './provider-kit';

const PASSWORD = 'tbank-provider-kit-password';

const paymentId = () => randomInt(1_000_000_000, 99_999_999_999);

/**
 * T-Bank, with the package's `signTBankDelivery` (its spec reproduces the Token of T-Bank's
 * documented example).
 */
export const kit: ProviderKit = {
  kind: 'tbank',
  signedBy: 'Token as documented',
  answer: { status: 200, body: 'OK' },
  endpoint: (name, secrets = 'right') =>
    tbankEndpoint({ name, password: secrets === 'right' ? PASSWORD : 'tbank-provider-kit-other' }),
  paid(orderId) {
    const payload = tbankFixtures.confirmed({ orderId, amount: 1999, paymentId: paymentId() });
    return {
      delivery: signTBankDelivery({ password: PASSWORD, payload }),
      expected: {
        eventId: `${payload.PaymentId}:CONFIRMED`,
        type: 'payment.succeeded',
        paymentRef: String(payload.PaymentId),
        merchantRef: orderId,
        amount: 1999,
      },
    };
  },
  tampered(orderId) {
    return tamperedWith(this.paid(orderId).delivery, '"Amount":1999', '"Amount":1');
  },
  poison: {
    build(v, n) {
      const id = `${n}_${v.paymentRef}`;
      const payload = {
        ...tbankFixtures.confirmed({ orderId: v.merchantRef, amount: 19200 }),
        PaymentId: id,
        Status: v.status,
      };
      return {
        delivery: signTBankDelivery({ password: PASSWORD, payload }),
        expected: [
          {
            eventId: `${id}:${v.status}`,
            nativeType: v.status,
            paymentRef: id,
            merchantRef: v.merchantRef,
            status: v.status,
          },
        ],
      };
    },
  },
  cli: {
    flags: ['--secret', PASSWORD],
    payload: (orderId) => tbankFixtures.confirmed({ orderId, paymentId: paymentId() }),
    expected: (orderId) => ({ type: 'payment.succeeded', merchantRef: orderId }),
  },
};
