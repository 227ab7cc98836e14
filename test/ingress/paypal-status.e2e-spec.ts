import { paypalEndpoint } from 'nestjs-payment-webhooks';
import {
  PAYPAL_TEST_CA_PEM,
  PAYPAL_TEST_CERTIFICATE_PEM,
  SignedDelivery,
  WebhookTestClient,
  paypalFixtures,
  signPayPalDelivery,
} from 'nestjs-payment-webhooks/testing';
import { withCrc32 } from '../support/crc32-forge';
import { FakePayPalApi } from '../../lib/spec-support/fake-paypal-api';
import { crc32 } from '../support/internals';
import { TestApp, countEffects, eventually, startTestApp } from '../support/test-app';

/**
 * `verifyWithProvider` on a PayPal endpoint: a forged body that arrives before the genuine one
 * (so no transmission check can tell it apart) is stored, but PayPal's API does not confirm
 * it, so no payment handler runs for it.
 */
const WEBHOOK_ID = 'WH_E2E_STATUS';
const suffix = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

let fake: FakePayPalApi;
let app: TestApp;
let client: WebhookTestClient;

const endpoint = (name: string, checked: boolean) =>
  paypalEndpoint({
    name,
    webhookId: WEBHOOK_ID,
    certificateResolver: async () => PAYPAL_TEST_CERTIFICATE_PEM,
    trustedRoots: PAYPAL_TEST_CA_PEM,
    ...(checked ? { api: fake.clientOptions(), verifyWithProvider: true } : {}),
  });

beforeAll(async () => {
  fake = await FakePayPalApi.start();
  app = await startTestApp({
    platform: 'express',
    database: 'sqlite',
    webhooks: {
      endpoints: [endpoint('paypal', true), endpoint('paypal-unchecked', false)],
      dispatch: { pollIntervalMs: 50 },
    },
  });
  client = new WebhookTestClient(app.url);
});

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

/** A capture PayPal really sent (its API knows the event and the capture), signed, not yet delivered. */
function genuine(): {
  event: ReturnType<typeof paypalFixtures.captureCompleted>;
  delivery: SignedDelivery;
} {
  const event = paypalFixtures.captureCompleted({
    orderId: 'order-paid',
    eventId: `WH-${suffix()}`,
  });
  fake.setEvent(event);
  fake.setResource('captures', { ...event.resource, id: event.resource.id as string });
  return { event, delivery: signPayPalDelivery({ payload: event, webhookId: WEBHOOK_ID }) };
}

/** Another body with the CRC-32 of `delivery`'s, for another order and amount. */
function forged(delivery: SignedDelivery, eventId: string): SignedDelivery {
  const event = JSON.parse(delivery.body) as { resource: Record<string, unknown> };
  const text = JSON.stringify({
    ...event,
    id: eventId,
    resource: {
      ...event.resource,
      custom_id: 'order-of-someone-else',
      amount: { currency_code: 'USD', value: '9999.00' },
    },
  });
  const body = withCrc32(`${text.slice(0, -1)},"note":"`, '"}', crc32(delivery.body));
  return { ...delivery, body };
}

async function row(endpointName: string, eventId: string) {
  const [found]: { status: string; last_error: string | null }[] = await app.dataSource.query(
    'SELECT status, last_error FROM webhook_events WHERE endpoint = ? AND event_id = ?',
    [endpointName, eventId],
  );
  return found;
}

describe('PayPal with verifyWithProvider', () => {
  it('runs the handlers of an event PayPal confirms', async () => {
    const { event, delivery } = genuine();
    expect((await client.send('paypal', delivery)).status).toBe(200);
    await eventually(async () => (await row('paypal', event.id))?.status === 'processed');
    expect(await countEffects(app, event.id)).toBe(1);
  });

  it.each([
    [
      'an event id PayPal does not know',
      () => `WH-FORGED-${suffix()}`,
      /not_found|does not know it/,
    ],
    [
      'the genuine event id with another order and amount',
      undefined,
      /resource\.custom_id, resource\.amount/,
    ],
  ])('runs no handler for a forged body with %s', async (_label, forgedId, reason) => {
    const { event, delivery } = genuine();
    const eventId = forgedId?.() ?? event.id;
    const body = forged(delivery, eventId);
    // Signed by PayPal's key as far as the CRC-32 goes: accepted and stored on both endpoints.
    expect((await client.send('paypal', body)).status).toBe(200);
    expect((await client.send('paypal-unchecked', body)).status).toBe(200);

    await eventually(async () => (await row('paypal', eventId))?.status === 'dead');
    expect((await row('paypal', eventId)).last_error).toMatch(reason);
    // Without the check the handler acts on the forged order; with it, it never runs.
    await eventually(async () => (await row('paypal-unchecked', eventId))?.status === 'processed');
    const calls = app.control.calls.filter((call) => call.eventId === eventId);
    expect(calls).toHaveLength(1);
    const effects: { merchantRef: string }[] = await app.dataSource.query(
      'SELECT merchantRef FROM test_effects WHERE eventId = ?',
      [eventId],
    );
    expect(effects).toEqual([{ merchantRef: 'order-of-someone-else' }]);
  });
});
