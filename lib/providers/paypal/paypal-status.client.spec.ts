import { ProviderStatusError, WebhookConfigurationError } from '../../core/webhook-errors';
import { FAKE_PAYPAL_CREDENTIALS, FakePayPalApi } from '../../spec-support/fake-paypal-api';
import { PaymentStatusQuery } from '../payment-status-client.interface';
import { paypalFixtures } from './paypal.fixtures';
import { PayPalStatusClient, PayPalStatusClientOptions } from './paypal-status.client';

let fake: FakePayPalApi;

beforeAll(async () => {
  fake = await FakePayPalApi.start();
});

afterEach(() => fake.reset());

afterAll(() => fake.close());

function client(options: Partial<PayPalStatusClientOptions> = {}): PayPalStatusClient {
  return new PayPalStatusClient({ ...fake.clientOptions(), ...options });
}

function queryOf(event: { resource: Record<string, unknown>; event_type: string }) {
  return {
    paymentRef: null,
    merchantRef: null,
    type: 'payment.succeeded',
    nativeType: event.event_type,
    payload: JSON.parse(JSON.stringify(event)),
  } satisfies PaymentStatusQuery;
}

/** A capture event PayPal knows, with its capture. */
function knownCapture(status = 'COMPLETED') {
  const event = paypalFixtures.captureCompleted({ orderId: 'order-7', amount: 1099 });
  fake.setEvent(event);
  fake.setResource('captures', { ...event.resource, id: event.resource.id as string, status });
  return event;
}

async function failure(promise: Promise<unknown>): Promise<ProviderStatusError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderStatusError);
  const message = (error as Error).message;
  expect(message).not.toContain(FAKE_PAYPAL_CREDENTIALS.clientSecret);
  expect(message).not.toMatch(/A21AA[0-9a-f]{10}/);
  return error as ProviderStatusError;
}

describe('PayPalStatusClient', () => {
  it('checks the event against PayPal’s copy, then reads the capture', async () => {
    const event = knownCapture();
    const answer = await client().fetchStatus(queryOf(event));
    expect(answer).toMatchObject({
      paymentRef: event.resource.id,
      status: 'COMPLETED',
      type: 'payment.succeeded',
      amount: 1099,
      currency: 'USD',
    });
    expect(fake.requests).toEqual([
      { method: 'POST', path: '/v1/oauth2/token', authorized: true },
      {
        method: 'GET',
        path: `/v1/notifications/webhooks-events/${event.id}`,
        authorized: true,
      },
      { method: 'GET', path: `/v2/payments/captures/${event.resource.id}`, authorized: true },
    ]);
  });

  it('keeps the access token until shortly before it expires', async () => {
    const event = knownCapture();
    const paypal = client();
    await paypal.fetchStatus(queryOf(event));
    await paypal.fetchStatus(queryOf(event));
    expect(fake.requests.filter((r) => r.path === '/v1/oauth2/token')).toHaveLength(1);

    fake.expiresIn = 1; // shorter than the renewal margin: kept for half its life
    const shortLived = client();
    await shortLived.fetchStatus(queryOf(event));
    expect(fake.requests.filter((r) => r.path === '/v1/oauth2/token')).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, 600));
    await shortLived.fetchStatus(queryOf(event));
    expect(fake.requests.filter((r) => r.path === '/v1/oauth2/token')).toHaveLength(3);
  });

  it('gets a new token once when PayPal refuses the cached one', async () => {
    const event = knownCapture();
    const paypal = client();
    await paypal.fetchStatus(queryOf(event));
    fake.revokeTokens();
    await expect(paypal.fetchStatus(queryOf(event))).resolves.toMatchObject({
      status: 'COMPLETED',
    });
    expect(fake.requests.filter((r) => r.path === '/v1/oauth2/token')).toHaveLength(2);
  });

  it('fails with not_found for an event PayPal does not know, and reads no resource', async () => {
    const event = knownCapture();
    const forged = { ...event, id: 'WH-0FORGED00000000000-00000000000000000' };
    const error = await failure(client().fetchStatus(queryOf(forged)));
    expect(error.failure).toBe('not_found');
    expect(error.message).toContain('webhook event "WH-0FORGED');
    expect(fake.requests.map((r) => r.path)).not.toContain(
      `/v2/payments/captures/${event.resource.id}`,
    );
  });

  it('fails with invalid_response, naming the fields, when PayPal’s copy says otherwise', async () => {
    const event = knownCapture();
    const forged = {
      ...event,
      resource: {
        ...event.resource,
        custom_id: 'order-of-someone-else',
        amount: { currency_code: 'USD', value: '9999.00' },
      },
    };
    const error = await failure(client().fetchStatus(queryOf(forged)));
    expect(error.failure).toBe('invalid_response');
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(
      /differs from PayPal's copy of the event in resource\.custom_id, resource\.amount; PayPal did not send this body/,
    );
  });

  it('reads a refund for refund events and an order for checkout order events', async () => {
    const refund = paypalFixtures.captureRefunded({ amount: 500 });
    fake.setEvent(refund);
    fake.setResource('refunds', { ...refund.resource, id: refund.resource.id as string });
    await expect(client().fetchStatus(queryOf(refund))).resolves.toMatchObject({
      status: 'COMPLETED',
      type: 'refund.succeeded',
      amount: 500,
    });
    const order = {
      id: 'WH-ORDER0000000000000-00000000000000000',
      event_type: 'CHECKOUT.ORDER.COMPLETED',
      resource: { id: '5O190127TN364715T', status: 'COMPLETED' },
    };
    fake.setEvent(order);
    fake.setResource('orders', {
      id: '5O190127TN364715T',
      status: 'COMPLETED',
      purchase_units: [{ amount: { currency_code: 'EUR', value: '12.50' } }],
    });
    await expect(client().fetchStatus(queryOf(order))).resolves.toMatchObject({
      type: 'payment.succeeded',
      amount: 1250,
      currency: 'EUR',
    });
    expect(fake.requests.map((r) => r.path)).toEqual(
      expect.arrayContaining([
        `/v2/payments/refunds/${refund.resource.id}`,
        '/v2/checkout/orders/5O190127TN364715T',
      ]),
    );
  });

  it('looks the capture up alone when asked without a notification (reconciliation)', async () => {
    const event = knownCapture('PENDING');
    const answer = await client().fetchStatus({
      paymentRef: event.resource.id as string,
      merchantRef: 'order-7',
      type: 'payment.succeeded',
      nativeType: 'PAYMENT.CAPTURE.COMPLETED',
      payload: null,
    });
    expect(answer).toMatchObject({ status: 'PENDING', type: undefined });
    expect(fake.requests.map((r) => r.path)).toEqual([
      '/v1/oauth2/token',
      `/v2/payments/captures/${event.resource.id}`,
    ]);
  });

  it('fails with unauthorized on wrong credentials, never showing them', async () => {
    const error = await failure(
      client({ clientSecret: 'EWrongSecret-0000000000' }).fetchStatus(queryOf(knownCapture())),
    );
    expect(error.failure).toBe('unauthorized');
    expect(error.message).not.toContain('EWrongSecret-0000000000');
    expect(error.message).toContain('invalid_client');
  });

  it('fails with missing_reference for an event about no capture, refund or order', async () => {
    const dispute = paypalFixtures.disputeCreated();
    const error = await failure(client().fetchStatus(queryOf(dispute)));
    expect(error.failure).toBe('missing_reference');
    expect(fake.requests).toEqual([]);
  });

  it('refuses unusable options at startup, naming the fix', () => {
    expect(() => client({ clientId: '' })).toThrow(WebhookConfigurationError);
    expect(() => client({ clientId: '' })).toThrow(/clientId is required/);
    expect(() =>
      client({ environment: 'production' as PayPalStatusClientOptions['environment'] }),
    ).toThrow(/environment must be "live" or "sandbox"/);
    expect(
      () => new PayPalStatusClient({ ...FAKE_PAYPAL_CREDENTIALS, environment: 'sandbox' }).kind,
    ).not.toThrow();
  });
});
