import { createHmac, randomInt, randomUUID } from 'node:crypto';
import { mercadoPagoEndpoint } from 'nestjs-payment-webhooks';
import { jsonDelivery, ProviderKit, tamperedWith } from './provider-kit';

const SECRET = 'provider-kit-mercado-pago-9f3c2a7e51b84d06a1c5e8b2f4d7a903';
const OTHER_SECRET = 'provider-kit-mercado-pago-0c6e1b9d84a27f53e6b1d0c9a8f7e2d4';
const CURRENCY = 'BRL';

/**
 * `x-signature` and `x-request-id` as Mercado Pago's documentation describes them: the hex
 * HMAC-SHA256 of `id:{data.id};request-id:{x-request-id};ts:{ts};`, computed here with node:crypto.
 */
function signatureHeaders(
  dataId: string,
  requestId: string = randomUUID(),
): Record<string, string> {
  const ts = Math.floor(Date.now() / 1000);
  const manifest = `id:${dataId};request-id:${requestId};ts:${ts};`;
  const v1 = createHmac('sha256', SECRET).update(manifest).digest('hex');
  return { 'x-signature': `ts=${ts},v1=${v1}`, 'x-request-id': requestId };
}

/** An Orders API `order.processed` notification of 19.99 BRL for the shop's order `orderId`. */
function orderProcessed(orderId: string, notificationId = 10_000_000_000 + randomInt(2 ** 40)) {
  return {
    action: 'order.processed',
    api_version: 'v1',
    application_id: '8339021212080291',
    data: {
      external_reference: orderId,
      id: `ORD01KIT${randomUUID().replace(/-/g, '').slice(0, 21).toUpperCase()}`,
      status: 'processed',
      status_detail: 'accredited',
      total_paid_amount: '19.99',
      type: 'online',
      version: 3,
    },
    date_created: new Date().toISOString(),
    id: notificationId,
    live_mode: false,
    type: 'order',
    user_id: 1197520450,
  };
}

/** Mercado Pago Webhooks, signed with node:crypto following the documented manifest. */
export const kit: ProviderKit = {
  kind: 'mercado-pago',
  signedBy: 'node:crypto (documented scheme)',
  answer: { status: 200, body: '' },
  endpoint: (name, secrets = 'right') =>
    mercadoPagoEndpoint({
      name,
      secret: secrets === 'right' ? SECRET : OTHER_SECRET,
      currency: CURRENCY,
      verifyWithProvider: false,
    }),
  paid(orderId) {
    const notification = orderProcessed(orderId);
    const body = JSON.stringify(notification);
    return {
      delivery: jsonDelivery('mercado-pago', body, signatureHeaders(notification.data.id)),
      expected: {
        eventId: String(notification.id),
        type: 'payment.succeeded',
        paymentRef: notification.data.id,
        merchantRef: orderId,
        amount: 1999,
        currency: CURRENCY,
      },
    };
  },
  tampered(orderId) {
    // NOTE: data.id is the one part of the body Mercado Pago signs.
    const delivery = this.paid(orderId).delivery;
    const dataId = (JSON.parse(delivery.body) as { data: { id: string } }).data.id;
    return tamperedWith(delivery, `"id":"${dataId}"`, `"id":"${dataId.slice(0, -1)}Z"`);
  },
  poison: {
    build(v, n) {
      const notificationId = `${n}_${v.id}`;
      const body = JSON.stringify({
        action: `order.${v.type}`,
        api_version: 'v1',
        data: {
          external_reference: v.merchantRef,
          id: v.paymentRef,
          status: v.status,
          total_paid_amount: '19.99',
          currency: v.currency,
        },
        date_created: new Date().toISOString(),
        id: notificationId,
        live_mode: false,
        type: 'order',
        user_id: 1197520450,
      });
      return {
        // NOTE: Mercado Pago's x-request-id is new on every request, and a request id seen with
        // another body in the same second is refused (400): the generated header value is made
        // unique by the run's number.
        delivery: jsonDelivery(
          'mercado-pago',
          body,
          signatureHeaders(v.paymentRef, `${n}_${v.headerId}`),
        ),
        expected: [
          {
            eventId: notificationId,
            nativeType: `order.${v.type}`,
            paymentRef: v.paymentRef,
            merchantRef: v.merchantRef,
            status: v.status,
          },
        ],
      };
    },
  },
  cli: {
    flags: ['--secret', SECRET],
    payload: (orderId) => orderProcessed(orderId),
    expected: (orderId) => ({ type: 'payment.succeeded', merchantRef: orderId }),
  },
};
