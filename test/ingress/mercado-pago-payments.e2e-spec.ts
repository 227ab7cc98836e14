import { WebhookSignatureValidator } from 'mercadopago';
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { mercadoPagoEndpoint, WebhookTelemetry } from 'nestjs-payment-webhooks';
import { DeliveryRecord } from 'nestjs-payment-webhooks/observability';
import { mercadoPagoFixtures } from 'nestjs-payment-webhooks/testing';
import { post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import { countEffects, eventually, startTestApp, TestApp } from '../support/test-app';

/**
 * A Mercado Pago `payment` notification says only that a payment changed; an endpoint with `api`
 * reads the payment from the Mercado Pago API while the call is answered and stores it as the
 * event. While the API cannot answer, the call is refused with 503 (journaled `unconfirmed`),
 * so Mercado Pago calls again; a second notification about the same state is a duplicate.
 */

const SECRET = 'e2e-mercado-pago-3b9d1f7a2c6e4085b1d3f5a7c9e0b2d4f6a8c0e1d3b5f7a9';
const TOKEN = 'APP_USR-5183442017561235-030215-6e3f7b1c2d9a4e8f0b5c1d7a3e9f2b4c-1197520450';
const PAYMENT_ID = '1319485746';

/** api.mercadopago.com's payments, down until `up` is set. */
class MercadoPagoApi {
  up = false;
  readonly payments = new Map<string, unknown>();
  readonly server: Server = createServer((request, response) => {
    const id = /^\/v1\/payments\/([^/?]+)$/.exec(request.url ?? '')?.[1];
    const payment = id === undefined ? undefined : this.payments.get(id);
    const [status, body] = !this.up
      ? [503, { message: 'service unavailable', error: 'unavailable', status: 503 }]
      : request.headers.authorization !== `Bearer ${TOKEN}`
        ? [401, { message: 'invalid access token', error: 'unauthorized', status: 401 }]
        : payment === undefined
          ? [404, { message: 'Payment not found', error: 'not_found', status: 404 }]
          : [200, payment];
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  });

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
}

/**
 * The headers Mercado Pago sends, signed with node:crypto as its documentation describes, and
 * checked with the official SDK's WebhookSignatureValidator.
 */
function signedHeaders(dataId: string): Record<string, string> {
  const ts = Math.floor(Date.now() / 1000);
  const requestId = randomUUID();
  const v1 = createHmac('sha256', SECRET)
    .update(`id:${dataId};request-id:${requestId};ts:${ts};`)
    .digest('hex');
  const headers = { 'x-signature': `ts=${ts},v1=${v1}`, 'x-request-id': requestId };
  WebhookSignatureValidator.validate({
    xSignature: headers['x-signature'],
    xRequestId: requestId,
    dataId,
    secret: SECRET,
    toleranceSeconds: 300,
  });
  return headers;
}

describe('Mercado Pago payment notifications confirmed with the Mercado Pago API', () => {
  const api = new MercadoPagoApi();
  const journal: DeliveryRecord[] = [];
  let app: TestApp;

  beforeAll(async () => {
    await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve));
    app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      webhooks: {
        endpoints: [
          mercadoPagoEndpoint({
            name: 'mercado-pago',
            secret: SECRET,
            api: { accessToken: TOKEN, apiUrl: api.url, timeoutMs: 2000 },
          }),
        ],
        dispatch: { pollIntervalMs: 50 },
      },
    });
    app.app.get(WebhookTelemetry).subscribe({ delivery: (record) => journal.push(record) });
  });

  afterAll(async () => {
    await app?.close();
    api.server.close();
  });

  it('is answered 503 while the API is down, then stored once as payment.succeeded and handled once', async () => {
    const payment = mercadoPagoFixtures.payment({
      paymentId: PAYMENT_ID,
      status: 'approved',
      amount: 1999,
      currency: 'BRL',
      orderId: 'order-mp-503',
    });
    api.payments.set(PAYMENT_ID, payment);
    const created = JSON.stringify(mercadoPagoFixtures.paymentCreated({ paymentId: PAYMENT_ID }));
    const headers = signedHeaders(PAYMENT_ID);
    const events = app.dataSource.getRepository(WebhookEventEntity);

    const refused = await post(`${app.url}/webhooks/mercado-pago`, created, headers);
    expect(refused.status).toBe(503);
    expect(await events.countBy({})).toBe(0);
    expect(journal.at(-1)).toMatchObject({ decision: 'unconfirmed', status: 503 });
    expect(journal.at(-1)?.reason).toMatch(
      /Could not confirm the Mercado Pago payment notification for 1319485746/,
    );

    api.up = true;
    const again = await post(`${app.url}/webhooks/mercado-pago`, created, headers);
    expect([again.status, again.body]).toEqual([200, '']);
    const [stored] = await events.findBy({});
    expect(stored).toMatchObject({
      eventId: `payment:${PAYMENT_ID}:approved`,
      type: 'payment.succeeded',
      nativeType: 'payment.approved',
      paymentRef: PAYMENT_ID,
      merchantRef: 'order-mp-503',
      amount: 1999,
      currency: 'BRL',
    });
    expect(JSON.parse(stored.rawBody)).toEqual(payment);
    await eventually(async () => (await countEffects(app, stored.eventId)) === 1);

    // NOTE: Mercado Pago notifies payment.updated about the same approved payment too. Within
    // 2 s of the read above it is refused (503), as that read may predate what it announces;
    // Mercado Pago calls again, and the payment read afresh is a duplicate.
    const updated = JSON.stringify(mercadoPagoFixtures.paymentUpdated({ paymentId: PAYMENT_ID }));
    const updatedHeaders = signedHeaders(PAYMENT_ID);
    const send = () => post(`${app.url}/webhooks/mercado-pago`, updated, updatedHeaders);
    let duplicate = await send();
    while (duplicate.status === 503) {
      expect(journal.at(-1)).toMatchObject({ decision: 'unconfirmed', status: 503 });
      expect(journal.at(-1)?.reason).toMatch(/asked about payment 1319485746 \d+ ms ago/);
      await new Promise((resolve) => setTimeout(resolve, 500));
      duplicate = await send();
    }
    expect([duplicate.status, duplicate.body]).toEqual([200, '']);
    expect(journal.at(-1)).toMatchObject({ decision: 'duplicate', status: 200 });
    expect(await events.countBy({})).toBe(1);
    await eventually(async () => (await events.findOneByOrFail({})).status === 'processed');
    expect(await countEffects(app, stored.eventId)).toBe(1);
  });
});
