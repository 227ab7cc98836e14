import {
  qvardEndpoint,
  sberEndpoint,
  stripeEndpoint,
  WebhooksModuleOptions,
} from 'nestjs-payment-webhooks';
import { sberFixtures, signQvard, signSberDelivery } from 'nestjs-payment-webhooks/testing';
import { post } from '../support/http';
import { MatrixApp, MatrixPlatform, startMatrixApp } from '../support/router-app';
import { signedStripeEvent, stripeSignature } from '../support/stripe-event';
import { Database, eventually, TestEffect } from '../support/test-app';

const STRIPE_SECRET = 'whsec_e2e_primary_secret';
const QVARD_SECRET = 'qvard-e2e-secret';
const SBER_TOKEN = 'sber-e2e-callback-token';

function webhookOptions(): WebhooksModuleOptions {
  return {
    endpoints: [
      stripeEndpoint({ name: 'stripe', secret: STRIPE_SECRET }),
      qvardEndpoint({ name: 'qvard', secret: QVARD_SECRET }),
      sberEndpoint({ name: 'sber', callbackToken: SBER_TOKEN }),
    ],
    dispatch: { pollIntervalMs: 20, retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 50 } },
  };
}

let sequence = 0;
const stripeEvent = (type?: string) =>
  signedStripeEvent(STRIPE_SECRET, { type, orderId: 'order-1' });
const stripeHeaders = (body: string, timestamp?: number) =>
  stripeSignature(body, STRIPE_SECRET, { timestamp });

// NOTE: forRootAsync only changes how the module gets its options; each platform and each
// database runs once with it and once with forRoot.
const matrix: [MatrixPlatform, Database, boolean][] = [
  ['express', 'sqlite', false],
  ['express', 'postgres', true],
  ['fastify', 'sqlite', true],
  ['fastify', 'postgres', false],
  // NOTE: the plain router takes its options directly; there is no forRootAsync to vary.
  ['router', 'sqlite', false],
  ['router', 'postgres', false],
];

describe.each(matrix)('webhooks over %s on %s (forRootAsync: %s)', (platform, database, async) => {
  let t: MatrixApp;
  const endpointUrl = (name: string) => `${t.url}/webhooks/${name}`;
  const row = async (eventId: string) =>
    (await t.dataSource.query(
      `SELECT status, attempts, delivery_count, last_error, type FROM webhook_events WHERE event_id = ${database === 'postgres' ? '$1' : '?'}`,
      [eventId],
    )) as {
      status: string;
      attempts: number;
      delivery_count: number;
      last_error: string | null;
      type: string;
    }[];
  const effects = (eventId: string) => t.dataSource.getRepository(TestEffect).countBy({ eventId });

  beforeAll(async () => {
    t = await startMatrixApp({ platform, database, async, webhooks: webhookOptions() });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('stores a valid delivery, answers 200, and runs the handler once', async () => {
    const { id, body } = stripeEvent();
    const response = await post(endpointUrl('stripe'), body, stripeHeaders(body));
    expect(response.status).toBe(200);
    expect(response.body).toBe('');
    await eventually(async () => (await row(id))[0]?.status === 'processed');
    expect(await effects(id)).toBe(1);
    expect((await row(id))[0]).toMatchObject({ attempts: 1, type: 'payment.succeeded' });
  });

  it('answers 20 concurrent identical deliveries with 200 and keeps one row and one effect', async () => {
    const { id, body } = stripeEvent();
    const headers = stripeHeaders(body);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => post(endpointUrl('stripe'), body, headers)),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    await eventually(async () => (await row(id))[0]?.status === 'processed');
    const rows = await row(id);
    expect(rows).toHaveLength(1);
    expect(Number(rows[0].delivery_count)).toBe(20);
    expect(await effects(id)).toBe(1);
  });

  it('rejects a bad signature, a missing signature and a stale timestamp with 400 and stores nothing', async () => {
    const { id, body } = stripeEvent();
    const tampered = body.replace('1999', '1');
    const stale = Math.floor(Date.now() / 1000) - 330;
    const results = await Promise.all([
      post(endpointUrl('stripe'), body, stripeSignature(body, 'whsec_wrong')),
      post(endpointUrl('stripe'), body),
      post(endpointUrl('stripe'), tampered, stripeHeaders(body)),
      post(endpointUrl('stripe'), body, stripeHeaders(body, stale)),
      post(endpointUrl('stripe'), body, stripeHeaders(body, Math.floor(Date.now() / 1000) + 330)),
    ]);
    expect(results.map((r) => r.status)).toEqual([400, 400, 400, 400, 400]);
    expect(await row(id)).toHaveLength(0);
  });

  it('answers 404 for an unknown endpoint and 400 for a signed body that is not JSON', async () => {
    const { body } = stripeEvent();
    expect((await post(endpointUrl('nope'), body, stripeHeaders(body))).status).toBe(404);
    const garbage = '{"id": "evt_x", ';
    expect((await post(endpointUrl('stripe'), garbage, stripeHeaders(garbage))).status).toBe(400);
  });

  it('answers a GET on a POST-only endpoint with 405 and Allow: POST, and keeps 404 for an unknown name', async () => {
    const get = await fetch(endpointUrl('stripe'), { redirect: 'manual' });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(((await get.json()) as { message: string }).message).toBe(
      'Webhook endpoint "stripe" does not accept GET; it takes POST',
    );
    const unknown = await fetch(endpointUrl('nope'), { redirect: 'manual' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { message: string }).message).toBe(
      'Unknown webhook endpoint "nope"',
    );
  });

  it('still takes Sber callbacks by GET', async () => {
    const delivery = signSberDelivery({
      method: 'GET',
      callbackToken: SBER_TOKEN,
      payload: sberFixtures.deposited({ orderNumber: `order-s-${sequence++}`, amount: 1999 }),
    });
    const response = await fetch(`${endpointUrl('sber')}?${delivery.body}`, { redirect: 'manual' });
    expect(response.status).toBe(200);
  });

  it('acknowledges and stores as ignored an event type no handler wants', async () => {
    const { id, body } = stripeEvent('customer.created');
    const response = await post(endpointUrl('stripe'), body, stripeHeaders(body));
    expect(response.status).toBe(200);
    expect((await row(id))[0]).toMatchObject({
      status: 'ignored',
      type: 'stripe:customer.created',
    });
  });

  it('retries a handler that fails twice, then processes it with 3 attempts and one effect', async () => {
    const { id, body } = stripeEvent();
    t.control.scripts.set(id, { failTimes: 2 });
    expect((await post(endpointUrl('stripe'), body, stripeHeaders(body))).status).toBe(200);
    await eventually(async () => (await row(id))[0]?.status === 'processed');
    expect((await row(id))[0].attempts).toBe(3);
    // NOTE: the failed attempts inserted effects too, and their transactions rolled back.
    expect(t.control.calls.filter((c) => c.eventId === id)).toHaveLength(3);
    expect(await effects(id)).toBe(1);
  });

  it('moves an always-failing event to dead after maxAttempts, with the last error', async () => {
    const { id, body } = stripeEvent();
    t.control.scripts.set(id, { alwaysFail: true });
    expect((await post(endpointUrl('stripe'), body, stripeHeaders(body))).status).toBe(200);
    await eventually(async () => (await row(id))[0]?.status === 'dead');
    const [dead] = await row(id);
    expect(dead.attempts).toBe(3);
    expect(dead.last_error).toContain('handler failure on attempt 3');
    expect(await effects(id)).toBe(0);
  });

  it('moves an event to dead at once on a NonRetryableError', async () => {
    const { id, body } = stripeEvent();
    t.control.scripts.set(id, { nonRetryable: true });
    await post(endpointUrl('stripe'), body, stripeHeaders(body));
    await eventually(async () => (await row(id))[0]?.status === 'dead');
    expect((await row(id))[0].attempts).toBe(1);
  });

  it('answers Qvard with exactly 200 and an empty body and dedups on id + status', async () => {
    const orderId = `order-q-${sequence++}`;
    const body = JSON.stringify({ id: orderId, status: 'completed' });
    const headers = signQvard({ payload: body, secret: QVARD_SECRET });
    const first = await post(endpointUrl('qvard'), body, headers);
    const again = await post(endpointUrl('qvard'), body, headers);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(first.body).toBe('');
    const eventId = `${orderId}:completed`;
    await eventually(async () => (await row(eventId))[0]?.status === 'processed');
    expect(await effects(eventId)).toBe(1);
  });
});
