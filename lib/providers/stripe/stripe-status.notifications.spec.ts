import { ProviderStatusError } from '../../core/webhook-errors';
import { FakeProviderApi } from '../../spec-support/fake-provider-api';
import { PaymentStatusQuery } from '../payment-status-client.interface';
import { StripeStatusClient } from './stripe-status.client';

const PI = 'pi_3MtwBwLkdIwHu7ix28a3tqPa';
const REFUND = 're_3MtwBwLkdIwHu7ix0a1b2c3d';
const EVENT = 'evt_test_65R9Ijk8d1Y5bbtRhwF5FEBJRTSQ3ygZSF0qTo8pUCV';
const ACCOUNT = 'acct_1Nv0FGQ9RKHgCVdK';

let fake: FakeProviderApi;

beforeAll(async () => {
  fake = await FakeProviderApi.start();
});

afterEach(() => fake.reset());

afterAll(async () => {
  await fake.close();
});

function client(): StripeStatusClient {
  return new StripeStatusClient(fake.clientOptions('stripe'));
}

/** What the dispatcher asks about a stored notification. */
function notificationQuery(fields: Record<string, unknown> = {}): PaymentStatusQuery {
  return {
    paymentRef: PI,
    merchantRef: null,
    type: 'payment.succeeded',
    nativeType: 'v1.payment_intent.succeeded',
    payload: {
      id: EVENT,
      object: 'v2.core.event',
      type: 'v1.payment_intent.succeeded',
      livemode: false,
      created: '2026-12-02T10:00:00.000Z',
      related_object: { id: PI, type: 'payment_intent', url: `/v1/payment_intents/${PI}` },
      ...fields,
    },
  };
}

async function failure(promise: Promise<unknown>): Promise<ProviderStatusError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderStatusError);
  return error as ProviderStatusError;
}

describe('StripeStatusClient and event notifications', () => {
  it('fetches the event at GET /v2/core/events/{id}', async () => {
    fake.setStripeEvent(EVENT, { type: 'v1.payment_intent.succeeded', data: { amount: 2500 } });

    const event = await client().fetchEvent(notificationQuery());

    expect(event).toEqual({
      id: EVENT,
      object: 'v2.core.event',
      type: 'v1.payment_intent.succeeded',
      data: { amount: 2500 },
    });
    const [request] = fake.requestsTo('stripe');
    expect(request.url).toBe(`/stripe/v2/core/events/${EVENT}`);
    expect(request.headers.authorization).toBe(`Bearer ${fake.credentialsFor('stripe').apiKey}`);
    expect(request.headers['stripe-context']).toBeUndefined();
  });

  it('fetches the related object from its url', async () => {
    fake.setStripeObject('/v1/charges/ch_1', { id: 'ch_1', object: 'charge', payment_intent: PI });
    const query = notificationQuery({
      type: 'v1.charge.succeeded',
      related_object: { id: 'ch_1', type: 'charge', url: '/v1/charges/ch_1' },
    });

    await expect(client().fetchRelatedObject(query)).resolves.toEqual({
      id: 'ch_1',
      object: 'charge',
      payment_intent: PI,
    });
    expect(fake.requestsTo('stripe').map((request) => request.url)).toEqual([
      '/stripe/v1/charges/ch_1',
    ]);
  });

  it('asks about a connected account’s notification with its Stripe-Context', async () => {
    fake
      .setStripeEvent(EVENT, { type: 'v1.payment_intent.succeeded' })
      .setStripeAccount(EVENT, ACCOUNT)
      .setPayment('stripe', PI, { status: 'succeeded', amount: 2500, currency: 'eur' })
      .setStripeAccount(PI, ACCOUNT);
    const query = notificationQuery({ context: ACCOUNT });

    await client().fetchEvent(query);
    await client().fetchRelatedObject(query);
    const status = await client().fetchStatus(query);

    expect(status).toMatchObject({ type: 'payment.succeeded', amount: 2500 });
    expect(fake.requestsTo('stripe').map((request) => request.headers['stripe-context'])).toEqual([
      ACCOUNT,
      ACCOUNT,
      ACCOUNT,
    ]);
    expect((await failure(client().fetchEvent(notificationQuery()))).failure).toBe('not_found');
  });

  it('asks about a connected account’s snapshot event with its Stripe-Account', async () => {
    fake.setPayment('stripe', PI, { status: 'succeeded' }).setStripeAccount(PI, ACCOUNT);
    const snapshot: PaymentStatusQuery = {
      ...notificationQuery(),
      nativeType: 'payment_intent.succeeded',
      payload: { id: 'evt_1', object: 'event', account: ACCOUNT, data: { object: { id: PI } } },
      account: ACCOUNT,
    };

    await expect(client().fetchStatus(snapshot)).resolves.toMatchObject({ status: 'succeeded' });
    const [request] = fake.requestsTo('stripe');
    expect([request.headers['stripe-account'], request.headers['stripe-context']]).toEqual([
      ACCOUNT,
      undefined,
    ]);
  });

  it('asks a refund notification’s refund, named by its related object', async () => {
    fake.setRefund('stripe', REFUND, { status: 'failed', amount: 500, currency: 'eur' });
    const query = notificationQuery({
      type: 'v1.refund.failed',
      related_object: { id: REFUND, type: 'refund', url: `/v1/refunds/${REFUND}` },
    });

    const status = await client().fetchStatus({
      ...query,
      paymentRef: null,
      type: 'refund.failed',
      nativeType: 'v1.refund.failed',
    });

    expect(status).toMatchObject({ paymentRef: REFUND, type: 'refund.failed', amount: 500 });
  });

  it('answers null for a notification that names no object', async () => {
    const query = notificationQuery({ related_object: undefined });
    await expect(client().fetchRelatedObject(query)).resolves.toBeNull();
    expect(fake.requestsTo('stripe')).toEqual([]);
  });

  it.each([
    ['another host', 'https://attacker.example/v1/charges/ch_1'],
    ['a parent path', '/v1/../../admin'],
    ['no API version', '/charges/ch_1'],
  ])('sends no request, and so no key, to a url with %s', async (_name, url) => {
    const query = notificationQuery({ related_object: { id: 'ch_1', type: 'charge', url } });
    const error = await failure(client().fetchRelatedObject(query));
    expect(error.failure).toBe('missing_reference');
    expect(fake.requests).toEqual([]);
  });

  it('refuses fetchEvent and fetchRelatedObject on a snapshot event, saying where its object is', async () => {
    const snapshot: PaymentStatusQuery = {
      ...notificationQuery(),
      payload: { id: 'evt_1', object: 'event', data: { object: { id: PI } } },
    };
    for (const lookup of [client().fetchEvent(snapshot), client().fetchRelatedObject(snapshot)]) {
      const error = await failure(lookup);
      expect(error.failure).toBe('missing_reference');
      expect(error.message).toMatch(/snapshot event.*event\.payload\.data\.object/);
    }
    expect(fake.requests).toEqual([]);
  });

  it('refuses an answer about another event', async () => {
    fake.setStripeEvent(EVENT, { id: 'evt_other' });
    const error = await failure(client().fetchEvent(notificationQuery()));
    expect(error.failure).toBe('invalid_response');
  });
});
