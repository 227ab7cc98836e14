import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import {
  adyenEndpoint,
  defineEndpoint,
  InboundWebhook,
  NormalizedNotification,
  paddleEndpoint,
  sberEndpoint,
  standardWebhooksEndpoint,
  stripeEndpoint,
  WebhookAdmin,
  WebhookAlert,
  WebhookProvider,
  WebhookVerificationError,
  yookassaEndpoint,
} from 'nestjs-payment-webhooks';
import {
  adyenNotificationItem,
  paddleFixtures,
  sberChecksumString,
  sberFixtures,
  signPaddleDelivery,
  signSberDelivery,
  WebhookTestClient,
  yookassaDelivery,
  yookassaPayment,
} from 'nestjs-payment-webhooks/testing';
import { fitToColumn } from 'nestjs-payment-webhooks/payments';
import { signedAdyenBody } from '../support/adyen-delivery';
import { FakeProviderApi } from '../../lib/spec-support/fake-provider-api';
import { post } from '../support/http';
import { sberProvider, WebhookEventEntity } from '../support/internals';
import { asStored, effectsFor, SeeingHandlers, seenFor } from '../support/seen-events';
import { standardWebhooksHeaders } from '../support/standard-webhooks-delivery';
import { stripeSignature } from '../support/stripe-event';
import { Database, eventually, Platform, startTestApp, TestApp } from '../support/test-app';

/**
 * Validly signed deliveries whose content does not fit the inbox's columns as sent (a currency
 * over 8 characters, ids over 255, NUL characters and bytes, a provider status over 64, a
 * handler outcome with NUL): each is stored once and answered with the provider's success, on
 * SQLite and PostgreSQL alike, and handlers see the values as stored, which both databases take.
 */

const STRIPE_SECRET = 'whsec_ingress_poison_secret';
const STANDARD_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const SBER_TOKEN = 'sber-ingress-poison-callback-token';
const ADYEN_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
const PADDLE_SECRET = 'pdl_ntfset_01poison0000000000000000_ingressPoisonSecret';
const BYTES_SECRET = 'bytes-ingress-poison-secret';
const UNIQUE = `${process.pid}-${Date.now()}`;

/** Alerts the apps raised. */
const alerts: WebhookAlert[] = [];

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/**
 * A provider of the app's own whose bodies are any bytes (a format that is not UTF-8 text):
 * `x-signature` is the hex HMAC-SHA256 of the raw body, `x-event-id` names the event, and the
 * payload is the body as base64.
 */
class BytesProvider implements WebhookProvider {
  readonly kind = 'bytes';
  readonly acknowledgement = { status: 200, body: '', contentType: 'text/plain; charset=utf-8' };

  verify(request: InboundWebhook): void {
    const expected = createHmac('sha256', BYTES_SECRET).update(request.rawBody).digest();
    const given = Buffer.from(request.headers['x-signature'] ?? '', 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new WebhookVerificationError('bad_signature', 'x-signature does not match the body');
    }
  }

  normalize(request: InboundWebhook): NormalizedNotification {
    return {
      eventId: request.headers['x-event-id'] ?? 'none',
      type: 'payment.succeeded',
      nativeType: 'bytes',
      payload: request.rawBody.toString('base64'),
    };
  }
}

function stripeBody(id: string, object: Record<string, unknown>): string {
  return JSON.stringify({
    id,
    object: 'event',
    type: 'payment_intent.succeeded',
    created: Math.floor(Date.now() / 1000),
    data: { object: { object: 'payment_intent', amount: 1999, currency: 'usd', ...object } },
  });
}

function stripeHeaders(body: string): Record<string, string> {
  return stripeSignature(body, STRIPE_SECRET);
}

/** An Adyen request with every item signed by the official library's `calculateHmac`. */
function adyenBody(items: ReturnType<typeof adyenNotificationItem>[]): string {
  return signedAdyenBody(ADYEN_KEY, items);
}

/** The inbox row the handler saw as `eventId`, once it has seen it. */
async function seenRow(app: TestApp, eventId: string): Promise<WebhookEventEntity> {
  await eventually(() => seenFor(eventId).length > 0);
  const row = await app.dataSource
    .getRepository(WebhookEventEntity)
    .findOneByOrFail({ id: seenFor(eventId)[0].id });
  return row;
}

/** How many inbox rows hold the event stored as `row` (its endpoint and stored id). */
function rowsLike(app: TestApp, row: WebhookEventEntity): Promise<number> {
  return app.dataSource
    .getRepository(WebhookEventEntity)
    .countBy({ endpoint: row.endpoint, eventId: row.eventId });
}

async function startPoisonApp(
  platform: Platform,
  database: Database,
  fake: FakeProviderApi,
): Promise<TestApp> {
  const api = fake.clientOptions('yookassa');
  return startTestApp({
    platform,
    database,
    handlers: [SeeingHandlers],
    webhooks: {
      endpoints: [
        stripeEndpoint({ name: 'stripe', secret: STRIPE_SECRET }),
        standardWebhooksEndpoint({ name: 'standard', secret: STANDARD_SECRET }),
        sberEndpoint({ name: 'sber', callbackToken: SBER_TOKEN }),
        adyenEndpoint({ name: 'adyen', hmacKey: ADYEN_KEY }),
        paddleEndpoint({ name: 'paddle', secret: PADDLE_SECRET }),
        yookassaEndpoint({
          name: 'yookassa',
          api: { shopId: api.shopId, secretKey: api.secretKey, apiUrl: api.apiUrl },
          allowedIps: ['127.0.0.1', '::1'],
        }),
        defineEndpoint({ name: 'bytes' }, new BytesProvider()),
      ],
      dispatch: {
        pollIntervalMs: 50,
        retry: { maxAttempts: 5, baseDelayMs: 60_000, maxDelayMs: 60_000 },
      },
      observability: {
        alerts: { onAlert: (alert) => void alerts.push(alert), paymentEventThreshold: 3 },
      },
    },
  });
}

describe.each<Database>(['sqlite', 'postgres'])(
  'poison deliveries on Express and %s',
  (database) => {
    let fake: FakeProviderApi;
    let app: TestApp;
    let client: WebhookTestClient;

    beforeAll(async () => {
      fake = await FakeProviderApi.start();
      app = await startPoisonApp('express', database, fake);
      client = new WebhookTestClient(app.url);
    });

    afterAll(async () => {
      await app?.close();
      await fake?.close();
    });

    beforeEach(() => {
      SeeingHandlers.seen = [];
      SeeingHandlers.outcomeFor = () => undefined;
    });

    it('stores a Stripe event whose currency is longer than 8 characters, and the handler sees it as stored', async () => {
      const id = `evt_currency_${UNIQUE}_${database}`;
      const body = stripeBody(id, { id: `pi_${id}`, currency: 'usd-extended' });
      expect((await post(`${app.url}/webhooks/stripe`, body, stripeHeaders(body))).status).toBe(
        200,
      );
      const row = await seenRow(app, id);
      expect(row.currency!.length).toBeLessThanOrEqual(8);
      expect(seenFor(id)[0].currency).toBe(row.currency);
      expect(row.currency).toBe(fitToColumn('USD-EXTENDED', 8));
      expect((await post(`${app.url}/webhooks/stripe`, body, stripeHeaders(body))).status).toBe(
        200,
      );
      expect(await rowsLike(app, row)).toBe(1);
      expect(await effectsFor(app, id)).toBe(1);
    });

    it('stores Stripe ids over 255 characters once each, and the handler sees them as stored', async () => {
      const long = `${UNIQUE}_${database}_${'x'.repeat(300)}`;
      const first = `evt_${long}_1`;
      const second = `evt_${long}_2`;
      const orderId = `order-${'o'.repeat(495)}`;
      for (const id of [first, second]) {
        const body = stripeBody(id, { id: `pi_${long}`, metadata: { orderId } });
        for (let delivery = 0; delivery < 2; delivery += 1) {
          const answer = await post(`${app.url}/webhooks/stripe`, body, stripeHeaders(body));
          expect(answer.status).toBe(200);
        }
      }
      const rows = [await seenRow(app, first), await seenRow(app, second)];
      expect(rows[0].eventId).not.toBe(rows[1].eventId);
      for (const row of rows) {
        expect(row.eventId.length).toBeLessThanOrEqual(255);
        expect(row.paymentRef!.length).toBeLessThanOrEqual(255);
        expect(await rowsLike(app, row)).toBe(1);
        expect(row.deliveryCount).toBe(2);
      }
      // NOTE: both events are of one payment: its stored reference is the same.
      expect(rows[0].paymentRef).toBe(rows[1].paymentRef);
      expect(seenFor(first)[0]).toMatchObject(
        asStored({ paymentRef: `pi_${long}`, merchantRef: orderId }),
      );
      const admin = app.app.get(WebhookAdmin);
      expect(await admin.count({ merchantRef: orderId, paymentRef: `pi_${long}` })).toBe(2);
      expect(await effectsFor(app, first)).toBe(1);
      expect(await effectsFor(app, second)).toBe(1);
    });

    it('stores a Paddle transaction whose custom_data order id is 500 characters', async () => {
      const orderId = `buyer-set-${UNIQUE}-${'b'.repeat(480)}`;
      const delivery = signPaddleDelivery({
        secret: PADDLE_SECRET,
        payload: paddleFixtures.transactionCompleted({ orderId, amount: 1999 }),
      });
      const eventId = (JSON.parse(delivery.body) as { event_id: string }).event_id;
      expect((await client.send('paddle', delivery)).status).toBe(200);
      const row = await seenRow(app, eventId);
      expect(row.merchantRef!.length).toBeLessThanOrEqual(255);
      expect(seenFor(eventId)[0].merchantRef).toBe(fitToColumn(orderId, 255));
    });

    it('stores a Standard Webhooks message whose webhook-id is 300 characters, once', async () => {
      const id = `msg_${UNIQUE}_${database}_${'m'.repeat(300)}`;
      const body = JSON.stringify({
        type: 'payment.succeeded',
        timestamp: new Date().toISOString(),
        data: { paymentId: `pay_${UNIQUE}`, amount: 500, currency: 'EUR' },
      });
      const send = () =>
        post(
          `${app.url}/webhooks/standard`,
          body,
          standardWebhooksHeaders(STANDARD_SECRET, id, body),
        );
      expect((await send()).status).toBe(200);
      const row = await seenRow(app, id);
      expect(row.eventId.length).toBeLessThanOrEqual(255);
      expect((await send()).status).toBe(200);
      expect(await rowsLike(app, row)).toBe(1);
      expect(await effectsFor(app, id)).toBe(1);
    });

    it('stores a Sber callback with mdOrder=%00, and the handler sees it as stored', async () => {
      const orderNumber = `nul-${UNIQUE}-${database}`;
      const delivery = signSberDelivery({
        callbackToken: SBER_TOKEN,
        payload: sberFixtures.deposited({ orderNumber, mdOrder: '\u0000' }),
      });
      expect(delivery.body).toContain('mdOrder=%00');
      expect((await client.send('sber', delivery)).status).toBe(200);
      const eventId = '\u0000:deposited:1';
      const row = await seenRow(app, eventId);
      expect(row.paymentRef).not.toContain('\u0000');
      expect(seenFor(eventId)[0]).toMatchObject({
        paymentRef: row.paymentRef,
        merchantRef: orderNumber,
      });
      expect((await client.send('sber', delivery)).status).toBe(200);
      expect(await rowsLike(app, row)).toBe(1);
    });

    it('stores a form body with a raw NUL byte exactly, so it still verifies and parses', async () => {
      const fields = {
        mdOrder: `raw\u0000${UNIQUE}-${database}`,
        operation: 'deposited',
        status: '1',
      };
      const checksum = createHmac('sha256', SBER_TOKEN)
        .update(sberChecksumString(fields))
        .digest('hex')
        .toUpperCase();
      const body = Buffer.from(
        `mdOrder=${fields.mdOrder}&operation=deposited&status=1&checksum=${checksum}`,
      );
      expect(body.includes(0)).toBe(true);
      const headers = { 'content-type': 'application/x-www-form-urlencoded' };
      expect((await post(`${app.url}/webhooks/sber`, body, headers)).status).toBe(200);
      const eventId = `${fields.mdOrder}:deposited:1`;
      const row = await seenRow(app, eventId);
      expect(seenFor(eventId)[0].paymentRef).toBe(fitToColumn(fields.mdOrder, 255));
      expect(row.bodySha256).toBe(sha256(body));
      const stored = row.rawBody.startsWith('base64:')
        ? Buffer.from(row.rawBody.slice('base64:'.length), 'base64')
        : Buffer.from(row.rawBody, 'utf8');
      expect(stored.equals(body)).toBe(true);
      const provider = sberProvider.provider({ callbackToken: SBER_TOKEN });
      expect(() =>
        provider.verify({ rawBody: stored, headers: row.headers, receivedAt: new Date() }),
      ).not.toThrow();
      expect((await post(`${app.url}/webhooks/sber`, body, headers)).status).toBe(200);
      expect(await rowsLike(app, row)).toBe(1);
    });

    it('stores a body that is not UTF-8 byte for byte, and the handler parses those bytes', async () => {
      const eventId = `bytes-${UNIQUE}-${database}`;
      const body = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0xc3, 0x28, 0x7d]);
      const headers = {
        'content-type': 'application/octet-stream',
        'x-event-id': eventId,
        'x-signature': createHmac('sha256', BYTES_SECRET).update(body).digest('hex'),
      };
      expect((await post(`${app.url}/webhooks/bytes`, body, headers)).status).toBe(200);
      const row = await seenRow(app, eventId);
      expect(seenFor(eventId)[0].payload).toBe(body.toString('base64'));
      expect(row.bodySha256).toBe(sha256(body));
    });

    it('stores every item of an Adyen batch when one item does not fit', async () => {
      const refs = [1, 2, 3].map((n) => `${n}${UNIQUE.replace(/\D/g, '')}`.slice(0, 16));
      const items = refs.map((pspReference, n) =>
        adyenNotificationItem('CAPTURE', {
          pspReference,
          originalReference: `orig-${pspReference}`,
          merchantReference: n === 1 ? `bad\u0000${'r'.repeat(300)}` : `order-${pspReference}`,
          amount: { currency: n === 1 ? 'EUR-WITH-A-SUFFIX' : 'EUR', value: 1000 + n },
        }),
      );
      const answer = await post(`${app.url}/webhooks/adyen`, adyenBody(items));
      expect(answer).toMatchObject({ status: 200, body: '[accepted]' });
      for (const pspReference of refs) {
        // NOTE: the handler records what it saw inside its transaction, before it commits.
        await eventually(
          async () => (await seenRow(app, `${pspReference}:CAPTURE:true`)).status === 'processed',
        );
      }
      expect(seenFor(`${refs[1]}:CAPTURE:true`)[0]).toMatchObject(
        asStored({ merchantRef: `bad\u0000${'r'.repeat(300)}`, currency: 'EUR-WITH-A-SUFFIX' }),
      );
    });

    it('counts the events of a payment whose reference does not fit its column, and alerts on a storm', async () => {
      const paymentRef = `pi_storm\u0000${UNIQUE}_${database}_${'s'.repeat(300)}`;
      for (let n = 1; n <= 4; n += 1) {
        const body = stripeBody(`evt_storm_${UNIQUE}_${database}_${n}`, { id: paymentRef });
        expect((await post(`${app.url}/webhooks/stripe`, body, stripeHeaders(body))).status).toBe(
          200,
        );
      }
      const storms = () =>
        alerts.filter(
          (alert) => alert.kind === 'payment_event_storm' && alert.paymentRef === paymentRef,
        );
      await eventually(() => storms().length > 0);
      expect(storms()[0]).toMatchObject({ endpoint: 'stripe', events: 4, threshold: 3 });
    });

    it('schedules a retry with backoff when the provider reports a status longer than its column', async () => {
      const id = randomUUID();
      fake.setPayment('yookassa', id, { status: `waiting_${'w'.repeat(100)}` });
      const delivery = yookassaDelivery({
        event: 'payment.succeeded',
        object: yookassaPayment('succeeded', { id }),
      });
      expect((await client.send('yookassa', delivery)).status).toBe(200);
      const repository = app.dataSource.getRepository(WebhookEventEntity);
      let row: WebhookEventEntity | null = null;
      await eventually(
        async () => (row = await repository.findOneBy({ paymentRef: id }))?.status === 'retrying',
      );
      expect(row!.attempts).toBe(1);
      expect(row!.providerStatus!.length).toBeLessThanOrEqual(64);
      expect(row!.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now() + 30_000);
    });

    it('keeps the effect of a handler whose outcome holds a NUL, and settles the event once', async () => {
      const id = `evt_outcome_${UNIQUE}_${database}`;
      SeeingHandlers.outcomeFor = (event) =>
        event.eventId === id ? `applied\u0000${'!'.repeat(80)}` : undefined;
      const body = stripeBody(id, { id: `pi_${id}` });
      expect((await post(`${app.url}/webhooks/stripe`, body, stripeHeaders(body))).status).toBe(
        200,
      );
      const repository = app.dataSource.getRepository(WebhookEventEntity);
      await eventually(
        async () => (await repository.findOneBy({ eventId: id }))?.status === 'processed',
      );
      const row = await repository.findOneByOrFail({ eventId: id });
      expect(row.attempts).toBe(1);
      expect(row.outcome).toMatch(/^applied/);
      expect(await effectsFor(app, id)).toBe(1);
    });
  },
);

describe('poison deliveries on Fastify and postgres', () => {
  let fake: FakeProviderApi;
  let app: TestApp;

  beforeAll(async () => {
    fake = await FakeProviderApi.start();
    app = await startPoisonApp('fastify', 'postgres', fake);
  });

  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it('stores a Stripe event with ids over 255 and a NUL in the order id, once', async () => {
    const id = `evt_fastify_${UNIQUE}_${'f'.repeat(300)}`;
    const orderId = `order\u0000${'o'.repeat(300)}`;
    const body = stripeBody(id, { id: `pi_${id}`, metadata: { orderId }, currency: 'x\u0000y' });
    for (let delivery = 0; delivery < 2; delivery += 1) {
      expect((await post(`${app.url}/webhooks/stripe`, body, stripeHeaders(body))).status).toBe(
        200,
      );
    }
    const row = await seenRow(app, id);
    expect(await rowsLike(app, row)).toBe(1);
    expect(seenFor(id)[0]).toMatchObject(asStored({ merchantRef: orderId, currency: 'X\u0000Y' }));
  });
});
