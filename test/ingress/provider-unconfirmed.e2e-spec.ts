import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { mollieEndpoint, WebhookTelemetry } from 'nestjs-payment-webhooks';
import { DeliveryRecord } from 'nestjs-payment-webhooks/observability';
import { mollieFixtures } from 'nestjs-payment-webhooks/testing';
import { post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import { countEffects, eventually, startTestApp, TestApp } from '../support/test-app';

/**
 * An unsigned delivery the provider's API must confirm (a classic Mollie webhook, `id=tr_…`):
 * while the API cannot answer, the call is refused with 503 and journaled as `unconfirmed`, so
 * Mollie calls again; once the API answers, the same call is stored as the payment and handled.
 */

const API_KEY = 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM';

/** Mollie's API, down until `up` is set. */
class MollieApi {
  up = false;
  readonly payments = new Map<string, unknown>();
  readonly server: Server = createServer((request, response) => {
    const id = /\/v2\/payments\/([^/?]+)/.exec(request.url ?? '')?.[1];
    const payment = id === undefined ? undefined : this.payments.get(id);
    const [status, body] = !this.up
      ? [503, { status: 503, title: 'Service Unavailable' }]
      : request.headers.authorization !== `Bearer ${API_KEY}`
        ? [401, { status: 401, title: 'Unauthorized Request' }]
        : payment === undefined
          ? [404, { status: 404, title: 'Not Found' }]
          : [200, payment];
    response.writeHead(status, { 'content-type': 'application/hal+json' });
    response.end(JSON.stringify(body));
  });

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v2`;
  }
}

describe('a classic Mollie webhook while the Mollie API is down', () => {
  const api = new MollieApi();
  const journal: DeliveryRecord[] = [];
  let app: TestApp;

  beforeAll(async () => {
    await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve));
    app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      webhooks: {
        endpoints: [
          mollieEndpoint({
            name: 'mollie',
            api: { apiKey: API_KEY, apiUrl: api.url, timeoutMs: 2000 },
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

  it('is answered 503 and stores nothing, then stored and handled once Mollie calls again', async () => {
    const payment = mollieFixtures.payment({ status: 'paid', orderId: 'order-mollie-503' });
    api.payments.set(payment.id as string, payment);
    const call = () =>
      post(`${app.url}/webhooks/mollie`, mollieFixtures.classicBody(payment.id as string), {
        'content-type': 'application/x-www-form-urlencoded',
      });

    const refused = await call();
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({ statusCode: 503 });
    expect(await app.dataSource.getRepository(WebhookEventEntity).countBy({})).toBe(0);
    expect(journal.at(-1)).toMatchObject({ decision: 'unconfirmed', status: 503 });
    expect(journal.at(-1)?.reason).toMatch(/Could not confirm the classic Mollie webhook/);

    api.up = true;
    const again = await call();
    expect([again.status, again.body]).toEqual([200, '']);
    const [stored] = await app.dataSource.getRepository(WebhookEventEntity).findBy({});
    expect(stored).toMatchObject({ type: 'payment.succeeded', merchantRef: 'order-mollie-503' });
    await eventually(async () => (await countEffects(app, stored.eventId)) === 1);
  });
});
