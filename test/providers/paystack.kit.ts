import { createHmac, randomInt } from 'node:crypto';
import type { SignedDelivery } from 'nestjs-payment-webhooks/testing';
import { paystackEndpoint } from 'nestjs-payment-webhooks';
import type { KitDelivery, PoisonValues, ProviderKit } from './provider-kit';

/**
 * Paystack: no official SDK, so deliveries are signed with node:crypto as Paystack's webhook page
 * shows it: `x-paystack-signature` is the hex HMAC-SHA512 of the body under the secret key.
 */

const SECRET_KEY = 'sk_test_kit0c4e8a1f5b9d3e7a2c6f0b4d8e1a5c9f3b7d';
const WRONG_SECRET_KEY = 'sk_test_kit9f1b5d3a7e2c6f0a4d8b1e5c9a3f7d2b6e';

function signed(body: string): SignedDelivery {
  return {
    provider: 'paystack',
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'x-paystack-signature': createHmac('sha512', SECRET_KEY).update(body).digest('hex'),
    },
  };
}

/** A charge event as Paystack sends it, trimmed to the fields the inbox reads and a few more. */
function charge(fields: {
  event: string;
  id: number | string;
  reference: string;
  status: string;
  currency: string;
}): Record<string, unknown> {
  const now = new Date().toISOString();
  return {
    event: fields.event,
    data: {
      id: fields.id,
      domain: 'test',
      status: fields.status,
      reference: fields.reference,
      amount: 1999,
      gateway_response: 'Successful',
      paid_at: now,
      created_at: now,
      channel: 'card',
      currency: fields.currency,
      metadata: {},
      customer: {
        id: 84312,
        email: 'adaeze.okafor@example.com',
        customer_code: 'CUS_xnxdt6s1zg1f4nx',
      },
    },
  };
}

function paid(orderId: string): KitDelivery {
  const id = randomInt(1_000_000_000, 9_999_999_999);
  const body = JSON.stringify(
    charge({ event: 'charge.success', id, reference: orderId, status: 'success', currency: 'NGN' }),
  );
  return {
    delivery: signed(body),
    expected: {
      eventId: `charge.success:${id}:success`,
      type: 'payment.succeeded',
      paymentRef: String(id),
      merchantRef: orderId,
      amount: 1999,
      currency: 'NGN',
    },
  };
}

export const kit: ProviderKit = {
  kind: 'paystack',
  signedBy: 'node:crypto (documented scheme)',
  answer: { status: 200, body: '' },
  endpoint: (name, secrets = 'right') =>
    paystackEndpoint({ name, secretKey: secrets === 'right' ? SECRET_KEY : WRONG_SECRET_KEY }),
  paid,
  tampered(orderId) {
    const { delivery } = paid(orderId);
    const body = delivery.body.replace('"amount":1999', '"amount":1');
    if (body === delivery.body) throw new Error('the Paystack delivery holds no amount 1999');
    return { ...delivery, body };
  },
  poison: {
    build(v: PoisonValues, n: string) {
      const id = `${n}_${v.paymentRef}`;
      const event = `charge.${v.type}`;
      const body = JSON.stringify(
        charge({ event, id, reference: v.merchantRef, status: v.status, currency: v.currency }),
      );
      return {
        delivery: signed(body),
        expected: [
          {
            eventId: `${event}:${id}:${v.status}`,
            nativeType: event,
            paymentRef: id,
            merchantRef: v.merchantRef,
            currency: v.currency.trim().toUpperCase() || null,
            status: v.status,
          },
        ],
      };
    },
  },
  cli: {
    flags: ['--secret', SECRET_KEY],
    payload: (orderId) =>
      charge({
        event: 'charge.success',
        id: 4099260516,
        reference: orderId,
        status: 'success',
        currency: 'NGN',
      }),
    expected: (orderId) => ({
      eventId: 'charge.success:4099260516:success',
      type: 'payment.succeeded',
      paymentRef: '4099260516',
      merchantRef: orderId,
      amount: 1999,
      currency: 'NGN',
    }),
  },
};
