import { randomBytes } from 'node:crypto';
import type { SignedDelivery } from 'nestjs-payment-webhooks/testing';
import { braintreeEndpoint } from 'nestjs-payment-webhooks';
import { currencyOf, ProviderKit } from './provider-kit';
import { braintreeSdk } from '../../lib/spec-support/braintree-sdk';

const PUBLIC_KEY = 'kitpublickey4br7';
const PRIVATE_KEY = '5c0b8a1f3e2d4c6b9a8f7e6d5c4b3a29';
const OTHER_PRIVATE_KEY = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';

// NOTE: the official SDK signs: webhookTesting.sampleSignature(bt_payload) is what its
// sampleNotification() signs with, here over a payload that carries the kit's order and amount.
const sdk = braintreeSdk(PUBLIC_KEY, PRIVATE_KEY);

const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

interface KitTransaction {
  readonly kind: string;
  readonly id: string;
  readonly type: 'sale' | 'credit';
  readonly status: string;
  readonly amount: string;
  readonly currency: string;
  readonly orderId: string;
  readonly refundedId?: string;
}

/** Braintree's `datetime`: ISO 8601 UTC to the second. */
function timestampNow(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function notificationXml(t: KitTransaction, timestamp: string): string {
  const refunded =
    t.refundedId === undefined
      ? ''
      : `<refunded-transaction-id>${escape(t.refundedId)}</refunded-transaction-id>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<notification>
  <timestamp type="datetime">${timestamp}</timestamp>
  <kind>${escape(t.kind)}</kind>
  <subject>
    <transaction>
      <id>${escape(t.id)}</id>
      <status>${escape(t.status)}</status>
      <type>${t.type}</type>
      <currency-iso-code>${escape(t.currency)}</currency-iso-code>
      <amount>${t.amount}</amount>
      <order-id>${escape(t.orderId)}</order-id>${refunded}
    </transaction>
  </subject>
</notification>
`;
}

function signedBy(xml: string, signature?: string): SignedDelivery {
  const payload = `${Buffer.from(xml, 'utf8').toString('base64')}\n`;
  const fields = {
    bt_signature: signature ?? sdk.sampleSignature(payload),
    bt_payload: payload,
  };
  return {
    provider: 'braintree',
    method: 'POST',
    body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  };
}

function settledSale(orderId: string): KitTransaction {
  return {
    kind: 'transaction_settled',
    id: randomBytes(4).toString('hex'),
    type: 'sale',
    status: 'settled',
    amount: '19.99',
    currency: 'USD',
    orderId,
  };
}

/**
 * Braintree, signed by the official SDK (`webhookTesting.sampleSignature`, the signer of its
 * `sampleNotification`) over XML the kit writes itself.
 */
export const kit: ProviderKit = {
  kind: 'braintree',
  signedBy: 'braintree SDK (webhookTesting.sampleSignature)',
  answer: { status: 200, body: '' },
  endpoint: (name, secrets = 'right') =>
    braintreeEndpoint({
      name,
      publicKey: PUBLIC_KEY,
      privateKey: secrets === 'right' ? PRIVATE_KEY : OTHER_PRIVATE_KEY,
    }),
  paid(orderId) {
    const sale = settledSale(orderId);
    const timestamp = timestampNow();
    return {
      delivery: signedBy(notificationXml(sale, timestamp)),
      expected: {
        eventId: `transaction_settled:${sale.id}:${timestamp}`,
        type: 'payment.succeeded',
        paymentRef: sale.id,
        merchantRef: orderId,
        amount: 1999,
        currency: 'USD',
      },
    };
  },
  tampered(orderId) {
    const sale = settledSale(orderId);
    const timestamp = timestampNow();
    const genuine = new URLSearchParams(signedBy(notificationXml(sale, timestamp)).body);
    // NOTE: the order id changed inside the signed payload, the signature kept.
    const changed = notificationXml({ ...sale, orderId: `${orderId}x` }, timestamp);
    return signedBy(changed, genuine.get('bt_signature') as string);
  },
  poison: {
    form: true,
    build(v, n) {
      const timestamp = timestampNow();
      const refund: KitTransaction = {
        kind: `transaction_${v.type}`,
        id: `${n}_${v.id}`,
        type: 'credit',
        status: v.status,
        amount: '19.99',
        currency: v.currency,
        orderId: v.merchantRef,
        refundedId: v.paymentRef,
      };
      return {
        delivery: signedBy(notificationXml(refund, timestamp)),
        expected: [
          {
            eventId: `${refund.kind}:${refund.id}:${timestamp}`,
            nativeType: refund.kind,
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
    flags: ['--secret', PRIVATE_KEY, '--public-key', PUBLIC_KEY],
    payload: (orderId) => ({
      kind: 'transaction_settled',
      subject: {
        transaction: {
          id: randomBytes(4).toString('hex'),
          status: 'settled',
          type: 'sale',
          'currency-iso-code': 'USD',
          amount: '19.99',
          'order-id': orderId,
        },
      },
    }),
    expected: (orderId) => ({
      type: 'payment.succeeded',
      merchantRef: orderId,
      amount: 1999,
      currency: 'USD',
    }),
  },
};
