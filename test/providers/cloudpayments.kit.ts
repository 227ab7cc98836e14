import { createHmac, randomInt } from 'node:crypto';
import type { SignedDelivery } from 'nestjs-payment-webhooks/testing';
import { cloudPaymentsEndpoint } from 'nestjs-payment-webhooks';
import { ProviderKit, currencyOf, tamperedWith } from './provider-kit';

const SECRET = 'cloudpayments-provider-kit-secret';

const transactionId = () => randomInt(1_000_000_000, 2_000_000_000);

/** Form-encodes the parameters as CloudPayments posts them. */
function form(fields: Record<string, string | number>): string {
  return new URLSearchParams(
    Object.entries(fields).map(([name, value]): [string, string] => [name, String(value)]),
  ).toString();
}

/**
 * Signs the way CloudPayments documents it, with node:crypto: Content-HMAC is the base64
 * HMAC-SHA256 of the body keyed by the API secret, X-Content-HMAC the same over the URL-decoded
 * body.
 */
function delivery(fields: Record<string, string | number>): SignedDelivery {
  const body = form(fields);
  const decoded = body
    .split('&')
    .map((pair) => decodeURIComponent(pair.replace(/\+/g, ' ')))
    .join('&');
  const hmac = (text: string) => createHmac('sha256', SECRET).update(text).digest('base64');
  return {
    provider: 'cloudpayments',
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'content-hmac': hmac(body),
      'x-content-hmac': hmac(decoded),
    },
  };
}

/** A Pay notification of a one-step payment, as CloudPayments posts it. */
function pay(id: number | string, invoiceId: string): Record<string, string | number> {
  return {
    TransactionId: id,
    Amount: '19.99',
    Currency: 'RUB',
    PaymentAmount: '19.99',
    PaymentCurrency: 'RUB',
    OperationType: 'Payment',
    InvoiceId: invoiceId,
    AccountId: 'user-77',
    Email: 'buyer@example.com',
    DateTime: new Date().toISOString().slice(0, 19).replace('T', ' '),
    CardFirstSix: '424242',
    CardLastFour: '4242',
    CardType: 'Visa',
    CardExpDate: '12/29',
    TestMode: 0,
    Status: 'Completed',
    GatewayName: 'CloudPayments',
  };
}

/** CloudPayments Pay notifications, form-encoded, at an endpoint for Pay. */
export const kit: ProviderKit = {
  kind: 'cloudpayments',
  signedBy: 'node:crypto (documented scheme)',
  answer: { status: 200, body: '{"code":0}' },
  endpoint: (name, secrets = 'right') =>
    cloudPaymentsEndpoint({
      name,
      notification: 'pay',
      apiSecret: secrets === 'right' ? SECRET : 'cloudpayments-provider-kit-other',
    }),
  paid(orderId) {
    const id = transactionId();
    return {
      delivery: delivery(pay(id, orderId)),
      expected: {
        eventId: `pay:${id}:Payment:Completed`,
        type: 'payment.succeeded',
        paymentRef: String(id),
        merchantRef: orderId,
        amount: 1999,
        currency: 'RUB',
      },
    };
  },
  tampered(orderId) {
    return tamperedWith(this.paid(orderId).delivery, 'Amount=19.99', 'Amount=1.99');
  },
  poison: {
    form: true,
    build(v, n) {
      const id = `${n}_${v.paymentRef}`;
      const fields = { ...pay(id, v.merchantRef), Currency: v.currency, Status: v.status };
      return {
        delivery: delivery(fields),
        expected: [
          {
            eventId: `pay:${id}:Payment:${v.status}`,
            nativeType: 'pay',
            paymentRef: id,
            merchantRef: v.merchantRef,
            currency: currencyOf(v.currency),
            status: v.status,
          },
        ],
      };
    },
  },
  cli: {
    flags: ['--secret', SECRET, '--notification', 'pay'],
    payload: (orderId) => pay(transactionId(), orderId),
    expected: (orderId) => ({ type: 'payment.succeeded', merchantRef: orderId, amount: 1999 }),
  },
};
