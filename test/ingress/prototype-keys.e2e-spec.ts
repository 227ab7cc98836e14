import {
  paddleEndpoint,
  paypalEndpoint,
  sberEndpoint,
  squareEndpoint,
  stripeEndpoint,
  tbankEndpoint,
  yoomoneyEndpoint,
} from 'nestjs-payment-webhooks';
import {
  PAYPAL_TEST_CA_PEM,
  PAYPAL_TEST_CERTIFICATE_PEM,
  paddleFixtures,
  paypalFixtures,
  sberFixtures,
  signPaddleDelivery,
  signPayPalDelivery,
  signSberDelivery,
  signSquareDelivery,
  signTBankDelivery,
  signYooMoneyDelivery,
  SignedDelivery,
  squareFixtures,
  tbankFixtures,
  WebhookTestClient,
  yoomoneyFixtures,
} from 'nestjs-payment-webhooks/testing';
import { WebhookEventEntity } from '../support/internals';
import { signedStripeEvent } from '../support/stripe-event';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Names every object inherits (`constructor`, `toString`, `__proto__`, `hasOwnProperty`) sent
 * where a provider's table maps native values: the stored row keeps the provider's own type
 * (or no currency), never a function's text. Signed by Stripe's SDK and the package's testing
 * signers (checked against the providers' SDKs and vectors in their own specs).
 */

const NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'] as const;
const SECRETS = {
  stripe: 'whsec_prototype_keys',
  paddle: 'pdl_ntfset_prototype_keys',
  tbank: 'tbank-prototype-keys',
  yoomoney: 'yoomoney-prototype-keys',
  sber: 'sber-prototype-keys',
  square: 'square-prototype-keys',
  paypal: 'WH-PROTOTYPE-KEYS',
};
const SQUARE_URL = 'https://shop.example.test/webhooks/square';

let app: TestApp;
let client: WebhookTestClient;
let sequence = 0;
const unique = (name: string) => `${name}-${process.pid}-${sequence++}`;

beforeAll(async () => {
  app = await startTestApp({
    platform: 'express',
    database: 'sqlite',
    webhooks: {
      endpoints: [
        stripeEndpoint({ name: 'stripe', secret: SECRETS.stripe }),
        paddleEndpoint({ name: 'paddle', secret: SECRETS.paddle }),
        tbankEndpoint({ name: 'tbank', password: SECRETS.tbank }),
        yoomoneyEndpoint({ name: 'yoomoney', notificationSecret: SECRETS.yoomoney }),
        sberEndpoint({ name: 'sber', callbackToken: SECRETS.sber }),
        squareEndpoint({
          name: 'square',
          signatureKey: SECRETS.square,
          notificationUrl: SQUARE_URL,
        }),
        paypalEndpoint({
          name: 'paypal',
          webhookId: SECRETS.paypal,
          certificateResolver: async () => PAYPAL_TEST_CERTIFICATE_PEM,
          trustedRoots: PAYPAL_TEST_CA_PEM,
        }),
      ],
      dispatch: { enabled: false },
    },
  });
  client = new WebhookTestClient(app.url);
});

afterAll(() => app.close());

/** Sends `delivery` to `endpoint`, expects 200, and returns the one row it stored. */
async function stored(endpoint: string, delivery: SignedDelivery, eventId: string) {
  const response = await client.send(endpoint, delivery);
  expect(response.status).toBe(200);
  const row = await app.dataSource
    .getRepository(WebhookEventEntity)
    .findOneByOrFail({ endpoint, eventId });
  return { type: row.type, nativeType: row.nativeType, currency: row.currency };
}

describe.each(NAMES)('an inherited name "%s" as a native value', (name) => {
  it('Stripe: the event type stays stripe:<type>', async () => {
    const event = signedStripeEvent(SECRETS.stripe, { id: unique('evt'), type: name, object: {} });
    const delivery: SignedDelivery = {
      provider: 'stripe',
      method: 'POST',
      body: event.body,
      headers: { 'content-type': 'application/json', ...event.headers },
    };
    expect(await stored('stripe', delivery, event.id)).toMatchObject({
      type: `stripe:${name}`,
      nativeType: name,
    });
  });

  it('Paddle: the event type stays paddle:<type>', async () => {
    const eventId = unique('evt');
    const payload = {
      ...paddleFixtures.transactionCompleted({ orderId: unique('order'), eventId }),
      event_type: name,
    };
    const delivery = signPaddleDelivery({ payload, secret: SECRETS.paddle });
    expect(await stored('paddle', delivery, eventId)).toMatchObject({
      type: `paddle:${name}`,
      nativeType: name,
    });
  });

  it('PayPal: the event type stays paypal:<type>', async () => {
    const eventId = unique('WH');
    const payload = {
      ...paypalFixtures.captureCompleted({ orderId: unique('order'), eventId }),
      event_type: name,
    };
    const delivery = signPayPalDelivery({ payload, webhookId: SECRETS.paypal });
    expect(await stored('paypal', delivery, eventId)).toMatchObject({
      type: `paypal:${name}`,
      nativeType: name,
    });
  });

  it('Square: a payment status maps to nothing, so the type stays square:<type>', async () => {
    const eventId = unique('sq');
    const payload = squareFixtures.paymentUpdated({
      status: name as 'COMPLETED',
      orderId: unique('order'),
      eventId,
    });
    const delivery = signSquareDelivery({
      payload,
      signatureKey: SECRETS.square,
      notificationUrl: SQUARE_URL,
    });
    expect(await stored('square', delivery, eventId)).toMatchObject({
      type: 'square:payment.updated',
      nativeType: 'payment.updated',
    });
  });

  it('T-Bank: the status stays tbank:<status>', async () => {
    const payload = tbankFixtures.notification(name, { orderId: unique('order') });
    const delivery = signTBankDelivery({ payload, password: SECRETS.tbank });
    expect(await stored('tbank', delivery, `${payload.PaymentId}:${name}`)).toMatchObject({
      type: `tbank:${name}`,
      nativeType: name,
    });
  });

  it('YooMoney: the notification type stays yoomoney:<type>', async () => {
    const payload = yoomoneyFixtures.incoming(
      'p2p-incoming',
      { label: unique('order') },
      {
        notification_type: name,
      },
    );
    const delivery = signYooMoneyDelivery({
      payload,
      notificationSecret: SECRETS.yoomoney,
    });
    expect(await stored('yoomoney', delivery, payload.operation_id)).toMatchObject({
      type: `yoomoney:${name}`,
      nativeType: name,
    });
  });

  it('Sber: a currency with that name is no currency', async () => {
    const payload = sberFixtures.callback(
      'deposited',
      { orderNumber: unique('order'), amount: 19200 },
      { currency: name },
    );
    const delivery = signSberDelivery({
      method: 'POST',
      payload,
      callbackToken: SECRETS.sber,
    });
    expect(await stored('sber', delivery, `${payload.mdOrder}:deposited:1`)).toMatchObject({
      type: 'payment.succeeded',
      currency: null,
    });
  });
});
