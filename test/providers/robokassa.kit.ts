import { createHash } from 'node:crypto';
import { robokassaEndpoint } from 'nestjs-payment-webhooks';
import type { SignedDelivery } from 'nestjs-payment-webhooks/testing';
import { ProviderKit, tamperedWith } from './provider-kit';

const PASSWORD_2 = 'robokassa-provider-kit-password-2';

/**
 * Signs as Robokassa documents it, with node:crypto: SignatureValue is the MD5 (hex) of
 * `OutSum:InvId:Password#2` followed by `:Shp_name=value` for each user parameter, sorted by name.
 */
function delivery(fields: Record<string, string>, method: 'GET' | 'POST' = 'POST'): SignedDelivery {
  const shp = Object.keys(fields)
    .filter((name) => name.startsWith('Shp_'))
    .sort()
    .map((name) => `:${name}=${fields[name]}`)
    .join('');
  const signature = createHash('md5')
    .update(`${fields.OutSum}:${fields.InvId}:${PASSWORD_2}${shp}`, 'utf8')
    .digest('hex')
    .toUpperCase();
  const body = new URLSearchParams({ ...fields, SignatureValue: signature }).toString();
  return {
    provider: 'robokassa',
    method,
    body,
    headers: method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
  };
}

/** A ResultURL call for invoice `invId`, as Robokassa sends it. */
function result(invId: string, shp: Record<string, string> = {}): Record<string, string> {
  return {
    OutSum: '19.990000',
    InvId: invId,
    Fee: '0.78',
    EMail: 'buyer@example.com',
    PaymentMethod: 'BankCard',
    IncCurrLabel: 'BankCardPSR',
    ...shp,
  };
}

/**
 * Robokassa ResultURL calls; the shop's order id travels as `InvId` (an invoice number at
 * Robokassa: the endpoint takes any text the signature covers) and as `Shp_orderId`.
 */
export const kit: ProviderKit = {
  kind: 'robokassa',
  signedBy: 'node:crypto (documented scheme)',
  answer: { status: 200, body: 'OK' },
  endpoint: (name, secrets = 'right') =>
    robokassaEndpoint({
      name,
      password2: secrets === 'right' ? PASSWORD_2 : 'robokassa-provider-kit-other',
    }),
  paid(orderId) {
    return {
      delivery: delivery(result(orderId, { Shp_orderId: orderId })),
      expected: {
        eventId: orderId,
        type: 'payment.succeeded',
        paymentRef: orderId,
        merchantRef: orderId,
        amount: 1999,
        currency: 'RUB',
      },
      answer: { status: 200, body: `OK${orderId}` },
    };
  },
  tampered(orderId) {
    return tamperedWith(this.paid(orderId).delivery, 'OutSum=19.990000', 'OutSum=1.990000');
  },
  poison: {
    form: true,
    build(v, n) {
      const invId = `${n}_${v.merchantRef}`;
      const fields = result(invId, { Shp_type: v.type, Shp_status: v.status });
      const post = delivery(fields);
      return {
        delivery: post.body.length < 8_000 ? delivery(fields, 'GET') : post,
        expected: [
          {
            eventId: invId,
            nativeType: 'result',
            paymentRef: invId,
            merchantRef: invId,
            currency: 'RUB',
          },
        ],
      };
    },
  },
  cli: {
    flags: ['--secret', PASSWORD_2],
    payload: (orderId) => result(orderId),
    expected: (orderId) => ({
      eventId: orderId,
      type: 'payment.succeeded',
      merchantRef: orderId,
      amount: 1999,
    }),
  },
};
