import { createHmac } from 'node:crypto';
import {
  adyenEndpoint,
  hmacEndpoint,
  paddleEndpoint,
  paypalEndpoint,
  qvardEndpoint,
  sberEndpoint,
  squareEndpoint,
  standardWebhooksEndpoint,
  stripeEndpoint,
  tbankEndpoint,
  WebhookEndpoint,
  yookassaEndpoint,
  yoomoneyEndpoint,
} from 'nestjs-payment-webhooks';
import {
  adyenNotificationItem,
  PAYPAL_TEST_CA_PEM,
  PAYPAL_TEST_CERTIFICATE_PEM,
  paddleFixtures,
  paypalFixtures,
  sberFixtures,
  SignedDelivery,
  signPaddleDelivery,
  signPayPalDelivery,
  signSberDelivery,
  signSquareDelivery,
  signTBankDelivery,
  signYooMoneyDelivery,
  squareFixtures,
  tbankFixtures,
  yookassaDelivery,
  yookassaPayment,
  yoomoneyFixtures,
} from 'nestjs-payment-webhooks/testing';
import { signedAdyenBody } from './adyen-delivery';
import { standardWebhooksHeaders } from './standard-webhooks-delivery';
import { stripeSignature } from './stripe-event';

/**
 * Signed deliveries of every supported provider with chosen values in every field the inbox
 * stores (ids, references, types, currency, status), for the poison property test. Signatures
 * come from the official SDKs where they sign (Stripe, Standard Webhooks, Adyen), from
 * node:crypto for the plain HMAC schemes, and from the package's signers (checked against the
 * SDKs' verifiers and the documented vectors) for the others.
 */

const SECRETS = {
  stripe: 'whsec_poison_properties_secret',
  standard: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  qvard: 'qvard-poison-properties-secret',
  hmac: 'hmac-poison-properties-secret',
  adyen: '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056',
  tbank: 'tbank-poison-properties-password',
  sber: 'sber-poison-properties-token',
  yoomoney: 'yoomoney-poison-properties-secret',
  paypal: 'WH-POISON-PROPERTIES-0000000000',
  paddle: 'pdl_ntfset_01poisonproperties00000000_poisonPropertiesSecret',
  square: 'poison-properties-square-key',
} as const;

const SQUARE_URL = 'https://shop.example.com/webhooks/square';

/** The endpoints the cases send to, one per provider. */
export function poisonEndpoints(): WebhookEndpoint[] {
  return [
    stripeEndpoint({ name: 'stripe', secret: SECRETS.stripe }),
    standardWebhooksEndpoint({ name: 'standard', secret: SECRETS.standard }),
    qvardEndpoint({ name: 'qvard', secret: SECRETS.qvard }),
    hmacEndpoint({
      name: 'hmac',
      secret: SECRETS.hmac,
      paymentRefPath: 'payment.id',
      currencyPath: 'payment.currency',
      statusPath: 'payment.status',
    }),
    adyenEndpoint({ name: 'adyen', hmacKey: SECRETS.adyen }),
    yookassaEndpoint({ name: 'yookassa', verifyWithProvider: false, allowedIps: ['127.0.0.1'] }),
    tbankEndpoint({ name: 'tbank', password: SECRETS.tbank }),
    sberEndpoint({ name: 'sber', callbackToken: SECRETS.sber }),
    yoomoneyEndpoint({ name: 'yoomoney', notificationSecret: SECRETS.yoomoney }),
    paypalEndpoint({
      name: 'paypal',
      webhookId: SECRETS.paypal,
      certificateResolver: async () => PAYPAL_TEST_CERTIFICATE_PEM,
      trustedRoots: PAYPAL_TEST_CA_PEM,
    }),
    paddleEndpoint({ name: 'paddle', secret: SECRETS.paddle }),
    squareEndpoint({ name: 'square', signatureKey: SECRETS.square, notificationUrl: SQUARE_URL }),
  ];
}

/** What a handler should see of one notification: the values as the delivery carried them. */
export interface ExpectedEvent {
  readonly eventId: string;
  readonly nativeType?: string;
  readonly paymentRef?: string | null;
  readonly merchantRef?: string | null;
  readonly currency?: string | null;
  readonly status?: string | null;
}

/** Six values, one for each kind of field a notification stores. */
export interface PoisonValues {
  readonly id: string;
  readonly type: string;
  readonly paymentRef: string;
  readonly merchantRef: string;
  readonly currency: string;
  readonly status: string;
  /** Printable ASCII only: a value a header can carry (Standard Webhooks' `webhook-id`). */
  readonly headerId: string;
}

/** One provider: how its deliveries carry the values, and what the handler should see. */
export interface PoisonCase {
  readonly endpoint: string;
  /** Whether values reach it through form encoding, which cannot carry unpaired UTF-16 halves. */
  readonly form?: boolean;
  /** A signed delivery carrying `values`; `n` makes its ids unique. */
  build(values: PoisonValues, n: string): { delivery: SignedDelivery; expected: ExpectedEvent[] };
}

/** What `toCurrency()` in the providers makes of a value: trimmed, upper-case. */
const currencyOf = (value: string) => value.trim().toUpperCase() || null;

const json = (provider: string, body: string, headers: Record<string, string>): SignedDelivery => ({
  provider,
  method: 'POST',
  body,
  headers: { 'content-type': 'application/json', ...headers },
});

export const POISON_CASES: readonly PoisonCase[] = [
  {
    endpoint: 'stripe',
    build(v, n) {
      const eventId = `evt_${n}_${v.id}`;
      const body = JSON.stringify({
        id: eventId,
        object: 'event',
        type: `payment_intent.${v.type}`,
        created: Math.floor(Date.now() / 1000),
        data: {
          object: {
            id: v.paymentRef,
            object: 'payment_intent',
            amount: 1999,
            currency: v.currency,
            status: v.status,
            metadata: { orderId: v.merchantRef },
          },
        },
      });
      return {
        delivery: json('stripe', body, stripeSignature(body, SECRETS.stripe)),
        expected: [
          {
            eventId,
            nativeType: `payment_intent.${v.type}`,
            paymentRef: v.paymentRef,
            merchantRef: v.merchantRef,
            currency: currencyOf(v.currency),
            status: v.status,
          },
        ],
      };
    },
  },
  {
    endpoint: 'standard',
    build(v, n) {
      const eventId = `msg_${n}_${v.headerId}`;
      const body = JSON.stringify({
        type: v.type,
        timestamp: new Date().toISOString(),
        data: {
          paymentId: v.paymentRef,
          orderId: v.merchantRef,
          currency: v.currency,
          status: v.status,
          amount: 500,
        },
      });
      return {
        delivery: json(
          'standard-webhooks',
          body,
          standardWebhooksHeaders(SECRETS.standard, eventId, body),
        ),
        expected: [
          {
            eventId,
            nativeType: v.type,
            paymentRef: v.paymentRef,
            merchantRef: v.merchantRef,
            currency: currencyOf(v.currency),
            status: v.status,
          },
        ],
      };
    },
  },
  {
    endpoint: 'qvard',
    build(v, n) {
      const orderId = `${n}_${v.merchantRef}`;
      const body = JSON.stringify({ id: orderId, status: v.status });
      const signature = createHmac('sha256', SECRETS.qvard).update(body).digest('hex');
      return {
        delivery: json('qvard', body, { 'x-qvard-signature': signature }),
        expected: [
          {
            eventId: `${orderId}:${v.status}`,
            nativeType: v.status,
            merchantRef: orderId,
            status: v.status,
          },
        ],
      };
    },
  },
  {
    endpoint: 'hmac',
    build(v, n) {
      const eventId = `${n}_${v.id}`;
      const body = JSON.stringify({
        id: eventId,
        type: v.type,
        data: { orderId: v.merchantRef },
        payment: { id: v.paymentRef, currency: v.currency, status: v.status },
      });
      const signature = createHmac('sha256', SECRETS.hmac).update(body).digest('hex');
      return {
        delivery: json('hmac', body, { 'x-signature': signature }),
        expected: [
          {
            eventId,
            nativeType: v.type,
            paymentRef: v.paymentRef,
            merchantRef: v.merchantRef,
            currency: currencyOf(v.currency),
            status: v.status,
          },
        ],
      };
    },
  },
  {
    endpoint: 'adyen',
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
        delivery: json('adyen', signedAdyenBody(SECRETS.adyen, [good, bad]), {}),
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
  {
    endpoint: 'yookassa',
    build(v, n) {
      const id = `${n}_${v.paymentRef}`;
      const event = `payment.${v.type}`;
      const object = yookassaPayment('succeeded', { id, metadata: { orderId: v.merchantRef } });
      const delivery = yookassaDelivery({ event, object: { ...object, status: v.status } });
      return {
        delivery,
        expected: [
          {
            eventId: `${event}:${id}`,
            nativeType: event,
            paymentRef: id,
            merchantRef: v.merchantRef,
            currency: 'RUB',
            status: v.status,
          },
        ],
      };
    },
  },
  {
    endpoint: 'tbank',
    build(v, n) {
      const paymentId = `${n}_${v.paymentRef}`;
      const payload = {
        ...tbankFixtures.confirmed({ orderId: v.merchantRef, amount: 19200 }),
        PaymentId: paymentId,
        Status: v.status,
      };
      return {
        delivery: signTBankDelivery({ password: SECRETS.tbank, payload }),
        expected: [
          {
            eventId: `${paymentId}:${v.status}`,
            nativeType: v.status,
            paymentRef: paymentId,
            merchantRef: v.merchantRef,
            status: v.status,
          },
        ],
      };
    },
  },
  {
    endpoint: 'sber',
    form: true,
    build(v, n) {
      const mdOrder = `${n}_${v.paymentRef}`;
      const payload = {
        ...sberFixtures.callback(v.type, { orderNumber: v.merchantRef, mdOrder }),
      };
      const get = signSberDelivery({ callbackToken: SECRETS.sber, payload, method: 'GET' });
      // NOTE: a query string longer than an HTTP server takes in its request line (16 KiB for
      // Node's) comes as a form POST instead.
      const delivery =
        get.body.length < 8_000
          ? get
          : signSberDelivery({ callbackToken: SECRETS.sber, payload, method: 'POST' });
      return {
        delivery,
        expected: [
          {
            eventId: `${mdOrder}:${v.type}:1`,
            nativeType: v.type,
            paymentRef: mdOrder,
            merchantRef: v.merchantRef,
            status: '1',
          },
        ],
      };
    },
  },
  {
    endpoint: 'yoomoney',
    form: true,
    build(v, n) {
      const operationId = `${n}_${v.paymentRef}`;
      const payload = {
        ...yoomoneyFixtures.p2pIncoming({ label: v.merchantRef, operationId }),
        notification_type: v.type,
      };
      return {
        delivery: signYooMoneyDelivery({ notificationSecret: SECRETS.yoomoney, payload }),
        expected: [
          {
            eventId: operationId,
            nativeType: v.type,
            paymentRef: operationId,
            merchantRef: v.merchantRef,
            currency: 'RUB',
          },
        ],
      };
    },
  },
  {
    endpoint: 'paypal',
    build(v, n) {
      const event = paypalFixtures.captureCompleted({ orderId: v.merchantRef, amount: 1999 });
      const eventId = `WH-${n}_${v.id}`;
      const payload = {
        ...event,
        id: eventId,
        event_type: `PAYMENT.CAPTURE.${v.type}`,
        resource: {
          ...event.resource,
          id: v.paymentRef,
          status: v.status,
          amount: { currency_code: v.currency, value: '19.99' },
        },
      };
      return {
        delivery: signPayPalDelivery({ webhookId: SECRETS.paypal, payload }),
        expected: [
          {
            eventId,
            nativeType: `PAYMENT.CAPTURE.${v.type}`,
            paymentRef: v.paymentRef,
            merchantRef: v.merchantRef,
            currency: currencyOf(v.currency),
            status: v.status,
          },
        ],
      };
    },
  },
  {
    endpoint: 'paddle',
    build(v, n) {
      const event = paddleFixtures.transactionCompleted({ orderId: v.merchantRef, amount: 1999 });
      const eventId = `evt_${n}_${v.id}`;
      const payload = {
        ...event,
        event_id: eventId,
        event_type: `transaction.${v.type}`,
        data: { ...event.data, id: v.paymentRef, currency_code: v.currency, status: v.status },
      };
      return {
        delivery: signPaddleDelivery({ secret: SECRETS.paddle, payload }),
        expected: [
          {
            eventId,
            nativeType: `transaction.${v.type}`,
            paymentRef: v.paymentRef,
            merchantRef: v.merchantRef,
            currency: currencyOf(v.currency),
            status: v.status,
          },
        ],
      };
    },
  },
  {
    endpoint: 'square',
    build(v, n) {
      const event = squareFixtures.paymentUpdated({ orderId: v.merchantRef, amount: 1999 });
      const eventId = `${n}_${v.id}`;
      const payment = event.data.object.payment as Record<string, unknown>;
      const payload = {
        ...event,
        event_id: eventId,
        type: `payment.${v.type}`,
        data: {
          ...event.data,
          object: {
            payment: {
              ...payment,
              id: v.paymentRef,
              status: v.status,
              amount_money: { amount: 1999, currency: v.currency },
            },
          },
        },
      };
      return {
        delivery: signSquareDelivery({
          signatureKey: SECRETS.square,
          notificationUrl: SQUARE_URL,
          payload,
        }),
        expected: [
          {
            eventId,
            nativeType: `payment.${v.type}`,
            paymentRef: v.paymentRef,
            merchantRef: v.merchantRef,
            currency: currencyOf(v.currency),
            status: v.status,
          },
        ],
      };
    },
  },
];
