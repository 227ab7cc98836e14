import { createHmac, randomInt } from 'node:crypto';
import type { SignedDelivery } from 'nestjs-payment-webhooks/testing';
import { goCardlessEndpoint } from 'nestjs-payment-webhooks';
import type { ExpectedEvent, KitDelivery, PoisonValues, ProviderKit } from './provider-kit';

/**
 * GoCardless: signed with node:crypto as GoCardless documents it (hex HMAC-SHA256 of the body
 * under the webhook endpoint's secret); the official SDK only verifies, and
 * lib/providers/gocardless/gocardless.kit.spec.ts checks these deliveries with its `parse()`.
 */

const SECRET = 'gc_kit_webhook_secret_Qm7Lx2Vb9Ns4';
const WRONG_SECRET = 'gc_kit_webhook_secret_Zt3Hw8Rc1Pk6';
const ID_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function gcId(prefix: string): string {
  let id = '';
  for (let i = 0; i < 12; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return `${prefix}${id}`;
}

function signed(body: string): SignedDelivery {
  return {
    provider: 'gocardless',
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-signature': createHmac('sha256', SECRET).update(body).digest('hex'),
    },
  };
}

/** One event in the shape GoCardless sends it. */
function event(fields: {
  id: string;
  resourceType: string;
  action: string;
  paymentId: string;
  orderId: string;
}): Record<string, unknown> {
  return {
    id: fields.id,
    created_at: new Date().toISOString(),
    resource_type: fields.resourceType,
    action: fields.action,
    links: { payment: fields.paymentId, organisation: 'OR000F6AQ2S1NA' },
    details: {
      origin: 'gocardless',
      cause: 'payment_confirmed',
      description: 'The payment is confirmed: the time for the banks to return it has passed.',
    },
    metadata: {},
    resource_metadata: { orderId: fields.orderId },
  };
}

function webhook(events: Record<string, unknown>[]): string {
  return JSON.stringify({ events, meta: { webhook_id: gcId('WB') } });
}

function paid(orderId: string): KitDelivery {
  const id = gcId('EV');
  const paymentId = gcId('PM');
  const body = webhook([
    event({ id, resourceType: 'payments', action: 'confirmed', paymentId, orderId }),
  ]);
  return {
    delivery: signed(body),
    // NOTE: GoCardless events carry no amount or currency, only links to the payment.
    expected: {
      eventId: id,
      type: 'payment.succeeded',
      paymentRef: paymentId,
      merchantRef: orderId,
    },
  };
}

export const kit: ProviderKit = {
  kind: 'gocardless',
  signedBy: 'node:crypto (documented scheme, checked by gocardless-nodejs parse)',
  answer: { status: 204, body: '' },
  refusedStatus: 498,
  endpoint: (name, secrets = 'right') =>
    goCardlessEndpoint({ name, secret: secrets === 'right' ? SECRET : WRONG_SECRET }),
  paid,
  tampered(orderId) {
    const { delivery } = paid(orderId);
    const body = delivery.body.replace('"confirmed"', '"cancelled"');
    if (body === delivery.body) throw new Error('the GoCardless delivery holds no "confirmed"');
    return { ...delivery, body };
  },
  poison: {
    build(v: PoisonValues, n: string) {
      const goodId = `EV_${n}_good`;
      const id = `EV_${n}_${v.id}`;
      const body = webhook([
        event({
          id: goodId,
          resourceType: 'payments',
          action: 'confirmed',
          paymentId: `PM_${n}`,
          orderId: `order-${n}`,
        }),
        event({
          id,
          resourceType: v.type,
          action: v.status,
          paymentId: v.paymentRef,
          orderId: v.merchantRef,
        }),
      ]);
      const expected: ExpectedEvent[] = [
        { eventId: goodId, paymentRef: `PM_${n}`, merchantRef: `order-${n}` },
        {
          eventId: id,
          nativeType: `${v.type}.${v.status}`,
          paymentRef: v.paymentRef,
          merchantRef: v.merchantRef,
          status: v.status,
        },
      ];
      return { delivery: signed(body), expected };
    },
  },
  cli: {
    flags: ['--secret', SECRET],
    payload: (orderId) =>
      JSON.parse(
        webhook([
          event({
            id: `EV_CLI_${orderId}`,
            resourceType: 'payments',
            action: 'confirmed',
            paymentId: `PM_CLI_${orderId}`,
            orderId,
          }),
        ]),
      ),
    expected: (orderId) => ({
      eventId: `EV_CLI_${orderId}`,
      type: 'payment.succeeded',
      paymentRef: `PM_CLI_${orderId}`,
      merchantRef: orderId,
    }),
  },
};
