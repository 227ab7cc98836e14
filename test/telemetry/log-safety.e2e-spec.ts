import 'reflect-metadata';
import { Injectable, LoggerService } from '@nestjs/common';
import fc from 'fast-check';
import {
  adyenEndpoint,
  hmacEndpoint,
  NonRetryableError,
  OnPaymentEvent,
  paddleEndpoint,
  PaymentEvent,
  paypalEndpoint,
  qvardEndpoint,
  sberEndpoint,
  squareEndpoint,
  standardWebhooksEndpoint,
  stripeEndpoint,
  tbankEndpoint,
  WebhookAdmin,
  WebhookContext,
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
  signHmac,
  signPaddleDelivery,
  signPayPalDelivery,
  signQvard,
  signSberDelivery,
  signSquareDelivery,
  signTBankDelivery,
  signYooMoneyDelivery,
  SignedDelivery,
  squareFixtures,
  tbankFixtures,
  WebhookTestClient,
  yookassaDelivery,
  yookassaPayment,
  yoomoneyFixtures,
} from 'nestjs-payment-webhooks/testing';
import { signedAdyenBody } from '../support/adyen-delivery';
import { standardWebhooksHeaders } from '../support/standard-webhooks-delivery';
import { stripeSignature } from '../support/stripe-event';
import { eventually, startTestApp, TestApp } from '../support/test-app';

/**
 * Property test of what the app logs: validly signed deliveries for every provider whose ids,
 * refs, types, currencies, statuses and reasons carry card numbers, ANSI escapes, line breaks
 * and other control characters. Whatever reaches the app's logger (the journal, the dispatcher,
 * alerts, a handler's `ctx.logger`) carries no card number and no raw control character.
 * Signatures come from Stripe's SDK, standardwebhooks, Adyen's hmacValidator, and the package's
 * testing signers (checked against the providers' SDKs and vectors in their own specs).
 */

const RUNS = Number(process.env.LOG_SAFETY_RUNS ?? 12);
const SECRETS = {
  stripe: 'whsec_log_safety_stripe',
  standard: `whsec_${Buffer.from('log-safety-standard-secret').toString('base64')}`,
  qvard: 'qvard-log-safety',
  hmac: 'hmac-log-safety',
  tbank: 'tbank-log-safety',
  sber: 'sber-log-safety',
  adyen: '44782def547aaa06c910c43932b1eb0c71fc68d9d0c057550c48ec2acf6ba056',
  paddle: 'pdl_ntfset_log_safety',
  yoomoney: 'yoomoney-log-safety',
  paypal: 'WH-LOG-SAFETY',
  square: 'square-log-safety',
};
const SQUARE_URL = 'https://shop.example.test/webhooks/square';
const ADYEN_ACCOUNT = 'ShopCompanyECOM';

/** What a log viewer or a terminal would act on rather than show. */
const RAW_CONTROL =
  // eslint-disable-next-line no-control-regex -- looking for raw control characters
  /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Every string a log call handed over: messages, fields of logged objects, parameters. */
function stringsOf(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') {
    into.push(value);
  } else if (Array.isArray(value)) {
    value.forEach((item) => stringsOf(item, into));
  } else if (value instanceof Error) {
    into.push(value.message, value.stack ?? '');
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      into.push(key);
      stringsOf(item, into);
    }
  }
  return into;
}

/** The app's logger: records what each call was given, at every level. */
class CapturingLogger implements LoggerService {
  readonly lines: { level: string; strings: string[] }[] = [];
  readonly all: string[] = [];
  private record(level: string, args: unknown[]): void {
    const strings = stringsOf(args);
    this.lines.push({ level, strings });
    this.all.push(...strings);
  }
  log(...args: unknown[]): void {
    this.record('log', args);
  }
  error(...args: unknown[]): void {
    this.record('error', args);
  }
  warn(...args: unknown[]): void {
    this.record('warn', args);
  }
  debug(...args: unknown[]): void {
    this.record('debug', args);
  }
  verbose(...args: unknown[]): void {
    this.record('verbose', args);
  }
  fatal(...args: unknown[]): void {
    this.record('fatal', args);
  }
}

/** A handler as an app writes one: it logs what it acts on, and fails on an unknown order. */
@Injectable()
class LoggingHandlers {
  @OnPaymentEvent('*')
  async apply(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    ctx.logger.log(
      `${event.type} (${event.nativeType}) for order ${event.merchantRef} payment ` +
        `${event.paymentRef}: ${event.amount} ${event.currency}, status ${event.status}`,
    );
    ctx.logger.debug?.({ eventId: event.eventId, payload: event.payload });
    throw new NonRetryableError(
      `order ${event.merchantRef} of payment ${event.paymentRef} (${event.status}) is unknown`,
    );
  }
}

/** The values a delivery carries, each one hostile. */
interface Hostile {
  eventId: string;
  type: string;
  paymentRef: string;
  merchantRef: string;
  currency: string;
  status: string;
  reason: string;
}

/** A Luhn-valid number of 13 to 19 digits, as every card number is. */
const cardNumber = fc
  .array(fc.integer({ min: 0, max: 9 }), { minLength: 12, maxLength: 18 })
  .map((digits) => {
    const body = [4, ...digits.slice(1)].join('');
    for (let check = 0; check <= 9; check += 1) {
      const candidate = `${body}${check}`;
      let sum = 0;
      for (let i = 0; i < candidate.length; i += 1) {
        let digit = Number(candidate[candidate.length - 1 - i]);
        if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
        sum += digit;
      }
      if (sum % 10 === 0) return candidate;
    }
    throw new Error('unreachable');
  });

/** A card number as it may be written: in a row, or in groups of four. */
const cardText = fc
  .tuple(cardNumber, fc.constantFrom('', ' ', '-'))
  .map(([digits, separator]) =>
    separator === '' || digits.length !== 16
      ? { digits, text: digits }
      : { digits, text: digits.match(/\d{4}/g)!.join(separator) },
  );

const controlText = fc.oneof(
  fc.constantFrom(
    '\n',
    '\r\n[Nest] 1 - forged LOG line\n',
    '\u001b[31m',
    '\u001b[2J\u001b[H',
    '\u001b]0;owned\u0007',
    '\u0007',
    '\b\b\b',
    '\t',
    '\u009b31m',
    '\u007f',
    '\u202eevil',
    '\u2028',
  ),
  fc.integer({ min: 0x01, max: 0x1f }).map((code) => String.fromCharCode(code)),
  fc.integer({ min: 0x7f, max: 0x9f }).map((code) => String.fromCharCode(code)),
);

const plainText = fc.string({ unit: fc.constantFrom(...'abcXYZ_.:/é☕'.split('')), maxLength: 6 });

/** A value made of text, card numbers and control characters, never two digit runs touching. */
const hostileValue = fc
  .array(
    fc.oneof(
      cardText,
      controlText.map((text) => ({ text })),
      plainText.map((text) => ({ text })),
    ),
    {
      minLength: 1,
      maxLength: 5,
    },
  )
  .map((pieces) => ({
    // NOTE: a letter between pieces, so two card numbers never make one longer digit run.
    text: `x${pieces.map((piece) => piece.text).join('x')}`,
    cards: pieces.flatMap((piece) =>
      'digits' in piece ? [piece as { digits: string; text: string }] : [],
    ),
  }));

const hostile = fc.record({
  eventId: hostileValue,
  type: hostileValue,
  paymentRef: hostileValue,
  merchantRef: hostileValue,
  currency: hostileValue,
  status: hostileValue,
  reason: hostileValue,
});

/**
 * A webhook-id as it may be sent: no control characters, no spaces a client trims, no "." (the
 * Standard Webhooks separator).
 */
const webhookIdOf = (text: string) => text.replace(/[^\u0021-\u007e]|\./g, '_');

function json(provider: string, body: string, headers: Record<string, string>): SignedDelivery {
  return {
    provider,
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  };
}

/** One validly signed delivery per endpoint, each carrying the hostile values where it can. */
function deliveries(h: Hostile): [string, SignedDelivery][] {
  const stripeBody = JSON.stringify({
    id: h.eventId,
    object: 'event',
    type: h.type,
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: h.paymentRef,
        object: 'payment_intent',
        amount: 1250,
        currency: h.currency,
        status: h.status,
        metadata: { orderId: h.merchantRef },
        last_payment_error: { message: h.reason },
      },
    },
  });
  const standardBody = JSON.stringify({
    type: h.type,
    timestamp: new Date().toISOString(),
    data: {
      paymentId: h.paymentRef,
      orderId: h.merchantRef,
      currency: h.currency,
      status: h.status,
    },
  });
  const standardId = webhookIdOf(h.eventId);
  const signedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
  const qvardBody = JSON.stringify({ id: h.merchantRef, status: h.status });
  const hmacBody = JSON.stringify({
    id: h.eventId,
    type: h.type,
    data: { orderId: h.merchantRef },
    paymentId: h.paymentRef,
    currency: h.currency,
    status: h.status,
  });
  const adyenItem = adyenNotificationItem('AUTHORISATION', {
    eventCode: h.type,
    pspReference: h.paymentRef,
    merchantReference: h.merchantRef,
    reason: h.reason,
    amount: { currency: h.currency, value: 1130 },
  });
  const paddle = paddleFixtures.transactionCompleted({
    orderId: h.merchantRef,
    eventId: h.eventId,
    transactionId: h.paymentRef,
  });
  const paypal = paypalFixtures.captureCompleted({
    orderId: h.merchantRef,
    eventId: h.eventId,
    captureId: h.paymentRef,
  });
  return [
    ['stripe', json('stripe', stripeBody, stripeSignature(stripeBody, SECRETS.stripe))],
    [
      'standard',
      json(
        'standard',
        standardBody,
        standardWebhooksHeaders(SECRETS.standard, standardId, standardBody, signedAt),
      ),
    ],
    ['qvard', json('qvard', qvardBody, signQvard({ payload: qvardBody, secret: SECRETS.qvard }))],
    [
      'hmac',
      json(
        'hmac',
        hmacBody,
        signHmac({ payload: hmacBody, secret: SECRETS.hmac, signatureHeader: 'x-hmac' }),
      ),
    ],
    [
      'tbank',
      signTBankDelivery({
        password: SECRETS.tbank,
        payload: tbankFixtures.notification(
          h.status,
          { orderId: h.merchantRef },
          {
            PaymentId: h.paymentRef as unknown as number,
            Message: h.reason,
            Details: h.type,
          },
        ),
      }),
    ],
    [
      'sber',
      signSberDelivery({
        method: 'POST',
        callbackToken: SECRETS.sber,
        payload: sberFixtures.callback(
          h.type,
          { orderNumber: h.merchantRef, mdOrder: h.paymentRef, amount: 1999 },
          { currency: h.currency },
        ),
      }),
    ],
    ['adyen', json('adyen', signedAdyenBody(SECRETS.adyen, [adyenItem]), {})],
    [
      'paddle',
      signPaddleDelivery({
        secret: SECRETS.paddle,
        payload: {
          ...paddle,
          event_type: h.type,
          data: { ...paddle.data, status: h.status, currency_code: h.currency },
        },
      }),
    ],
    [
      'yookassa',
      yookassaDelivery({
        event: h.type,
        object: yookassaPayment('succeeded', {
          id: h.paymentRef,
          status: h.status,
          metadata: { orderId: h.merchantRef },
        }),
      }),
    ],
    [
      'yoomoney',
      signYooMoneyDelivery({
        notificationSecret: SECRETS.yoomoney,
        payload: yoomoneyFixtures.incoming(
          'p2p-incoming',
          { label: h.merchantRef, operationId: h.paymentRef },
          { notification_type: h.type, currency: h.currency },
        ),
      }),
    ],
    [
      'paypal',
      signPayPalDelivery({
        webhookId: SECRETS.paypal,
        payload: {
          ...paypal,
          event_type: h.type,
          resource: { ...paypal.resource, status: h.status },
        },
      }),
    ],
    [
      'square',
      signSquareDelivery({
        signatureKey: SECRETS.square,
        notificationUrl: SQUARE_URL,
        payload: squareFixtures.paymentUpdated({
          status: h.status as 'COMPLETED',
          orderId: h.merchantRef,
          eventId: h.eventId,
          paymentId: h.paymentRef,
        }),
      }),
    ],
  ];
}

/** Validly sent deliveries refused for what they say, so the journal quotes a value. */
function refusals(h: Hostile): [string, SignedDelivery][] {
  const item = adyenNotificationItem('CAPTURE', {
    merchantAccountCode: h.merchantRef,
    pspReference: 'QFQTPCQ8HXSKGK83',
  });
  return [
    ['adyen', json('adyen', signedAdyenBody(SECRETS.adyen, [item]), {})],
    [
      'yookassa',
      yookassaDelivery({
        event: 'payment.succeeded',
        object: yookassaPayment('succeeded', {
          id: 'pay-1',
          amount: { value: h.reason, currency: 'RUB' },
        }),
      }),
    ],
  ];
}

let app: TestApp;
let client: WebhookTestClient;
const logger = new CapturingLogger();

beforeAll(async () => {
  app = await startTestApp({
    platform: 'express',
    database: 'sqlite',
    handlers: [LoggingHandlers],
    webhooks: {
      endpoints: [
        stripeEndpoint({ name: 'stripe', secret: SECRETS.stripe }),
        standardWebhooksEndpoint({ name: 'standard', secret: SECRETS.standard }),
        qvardEndpoint({ name: 'qvard', secret: SECRETS.qvard }),
        hmacEndpoint({
          name: 'hmac',
          secret: SECRETS.hmac,
          signatureHeader: 'x-hmac',
          paymentRefPath: 'paymentId',
          currencyPath: 'currency',
          statusPath: 'status',
        }),
        tbankEndpoint({ name: 'tbank', password: SECRETS.tbank }),
        sberEndpoint({ name: 'sber', callbackToken: SECRETS.sber }),
        adyenEndpoint({ name: 'adyen', hmacKey: SECRETS.adyen, merchantAccount: ADYEN_ACCOUNT }),
        paddleEndpoint({ name: 'paddle', secret: SECRETS.paddle }),
        yookassaEndpoint({
          name: 'yookassa',
          verifyWithProvider: false,
          allowedIps: ['127.0.0.1', '::1', '::ffff:127.0.0.1'],
        }),
        yoomoneyEndpoint({ name: 'yoomoney', notificationSecret: SECRETS.yoomoney }),
        paypalEndpoint({
          name: 'paypal',
          webhookId: SECRETS.paypal,
          certificateResolver: async () => PAYPAL_TEST_CERTIFICATE_PEM,
          trustedRoots: PAYPAL_TEST_CA_PEM,
        }),
        squareEndpoint({
          name: 'square',
          signatureKey: SECRETS.square,
          notificationUrl: SQUARE_URL,
        }),
      ],
      dispatch: { pollIntervalMs: 20, retry: { maxAttempts: 1 } },
      observability: { alerts: { paymentEventThreshold: 1 } },
    },
  });
  app.app.useLogger(logger);
  client = new WebhookTestClient(app.url);
}, 60_000);

afterAll(() => app.close());

/** Resolves once every stored event has settled, so the dispatcher's lines are in. */
async function settled(): Promise<void> {
  const admin = app.app.get(WebhookAdmin);
  await eventually(
    async () => (await admin.count({ status: ['pending', 'processing', 'retrying'] })) === 0,
    20_000,
  );
}

it('logs no card number and no raw control character, whatever the deliveries carry', async () => {
  await fc.assert(
    fc.asyncProperty(hostile, async (values) => {
      const h = Object.fromEntries(
        Object.entries(values).map(([field, value]) => [field, value.text]),
      ) as unknown as Hostile;
      const cards = Object.values(values).flatMap((value) => value.cards);
      logger.lines.length = 0;
      const answers: string[] = [];
      for (const [endpoint, delivery] of deliveries(h)) {
        answers.push(`${endpoint} ${(await client.send(endpoint, delivery)).status}`);
      }
      for (const [endpoint, delivery] of refusals(h)) {
        answers.push(`${endpoint} ${(await client.send(endpoint, delivery)).status}`);
      }
      await settled();
      expect(answers).toEqual([
        ...deliveries(h).map(([endpoint]) => `${endpoint} 200`),
        'adyen 400',
        'yookassa 400',
      ]);
      // NOTE: one expect for every string of every line: thousands of them took seconds a run.
      const unsafe = (text: string) =>
        RAW_CONTROL.test(text) ||
        cards.some((card) => text.includes(card.digits) || text.includes(card.text));
      expect(
        logger.lines.flatMap((line) =>
          line.strings.filter(unsafe).map((text) => ({ level: line.level, text })),
        ),
      ).toEqual([]);
    }),
    { numRuns: RUNS },
  );
  // The lines checked are the app's real ones: journal, dispatcher, alerts and handler lines.
  const everything = logger.all.join('\n');
  expect(everything).toContain('accepted');
  expect(everything).toMatch(/is dead/);
  expect(everything).toMatch(/\[dead_letter\]/);
  expect(everything).toMatch(/for order .* payment /);
}, 300_000);
