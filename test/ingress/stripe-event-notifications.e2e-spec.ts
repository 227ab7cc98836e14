import { Injectable } from '@nestjs/common';
import Stripe from 'stripe';
import {
  OnPaymentEvent,
  PaymentEvent,
  WebhookContext,
  WebhookEndpoint,
  stripeEndpoint,
} from 'nestjs-payment-webhooks';
import { WebhookHandlerDefinition } from 'nestjs-payment-webhooks/express';
import { SignedDelivery, WebhookTestClient } from 'nestjs-payment-webhooks/testing';
import { FakeProviderApi } from '../../lib/spec-support/fake-provider-api';
import { WebhookEventEntity } from '../support/internals';
import { startRouterApp } from '../support/router-app';
import {
  relatedPaymentIntent,
  signedStripeNotification,
  stripeSignature,
} from '../support/stripe-event';
import {
  Database,
  HandlerControl,
  Platform,
  applyTestEffect,
  countEffects,
  eventually,
  startTestApp,
} from '../support/test-app';

const THIN_SECRET = 'whsec_thin_destination';
const ACCOUNT = 'acct_1Nv0FGQ9RKHgCVdK';

/** What a handler saw of an event: what ctx fetched, or the error it got. */
interface Seen {
  eventId: string;
  endpoint: string;
  verified: string | undefined;
  event?: unknown;
  related?: unknown;
  error?: string;
}

/**
 * The shop's handler: fetch the event and its object (twice each, as two parts of a handler
 * might), then record the effect as the other specs' handlers do.
 */
async function fulfil(
  control: HandlerControl,
  seen: Seen[],
  event: PaymentEvent,
  ctx: WebhookContext,
): Promise<void> {
  const entry: Seen = {
    eventId: event.eventId,
    endpoint: event.endpoint,
    verified: event.verified?.status,
  };
  seen.push(entry);
  try {
    entry.event = await ctx.fetchEvent();
    await ctx.fetchEvent();
    entry.related = await ctx.fetchRelatedObject();
    await ctx.fetchRelatedObject();
  } catch (error) {
    entry.error = (error as Error).message;
  }
  await applyTestEffect(control, 'fulfil', event, ctx);
}

const SEEN: Seen[] = [];

@Injectable()
class NotificationHandlers {
  constructor(private readonly control: HandlerControl) {}

  @OnPaymentEvent('payment.succeeded')
  async paid(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    await fulfil(this.control, SEEN, event, ctx);
  }
}

let sequence = 0;

/** A notification as the WebhookTestClient sends it, signed by Stripe's own SDK. */
function notification(fields: Record<string, unknown>): SignedDelivery {
  sequence += 1;
  const { id, body, headers } = signedStripeNotification(THIN_SECRET, fields);
  return {
    provider: 'stripe',
    method: 'POST',
    body,
    eventId: id,
    headers: { 'content-type': 'application/json', ...headers },
  };
}

const aboutPayment = relatedPaymentIntent;

type Case = [Platform | 'router', Database];

describe.each<Case>([
  ['router', 'sqlite'],
  ['router', 'postgres'],
  ['express', 'postgres'],
])('Stripe event notifications on %s with %s', (platform, database) => {
  let fake: FakeProviderApi;
  let control: HandlerControl;
  let app: { url: string; dataSource: import('typeorm').DataSource; close(): Promise<void> };
  let client: WebhookTestClient;

  beforeAll(async () => {
    fake = await FakeProviderApi.start();
    control = new HandlerControl();
    const api = fake.clientOptions('stripe');
    const endpoints: WebhookEndpoint[] = [
      stripeEndpoint({ name: 'stripe-thin', secret: THIN_SECRET, api }),
      stripeEndpoint({
        name: 'stripe-verified',
        secret: THIN_SECRET,
        api,
        verifyWithProvider: true,
      }),
      stripeEndpoint({ name: 'stripe-keyless', secret: THIN_SECRET }),
    ];
    const webhooks = {
      endpoints,
      dispatch: { pollIntervalMs: 50, retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 } },
    };
    if (platform === 'router') {
      const handlers: WebhookHandlerDefinition[] = [
        {
          on: 'payment.succeeded',
          name: 'fulfil',
          handle: (event, ctx) => fulfil(control, SEEN, event, ctx),
        },
      ];
      app = await startRouterApp({ database, control, webhooks, handlers });
    } else {
      app = await startTestApp({
        platform,
        database,
        control,
        webhooks,
        handlers: [NotificationHandlers],
      });
    }
    client = new WebhookTestClient(app.url);
  });

  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  beforeEach(() => {
    SEEN.length = 0;
    fake.reset();
  });

  async function settledRow(endpoint: string, eventId: string): Promise<WebhookEventEntity> {
    const rows = app.dataSource.getRepository(WebhookEventEntity);
    let row: WebhookEventEntity | null = null;
    await eventually(async () => {
      row = await rows.findOneBy({ endpoint, eventId });
      return row?.status === 'processed' || row?.status === 'dead';
    });
    return row!;
  }

  function stripeRequests(path: string) {
    return fake.requestsTo('stripe').filter((request) => request.url === `/stripe${path}`);
  }

  it('stores a connected account’s notification, runs its handler once, and fetches with its Stripe-Context', async () => {
    const pi = `pi_thin_${sequence}_${Date.now().toString(36)}`;
    const delivery = notification({ ...aboutPayment(pi), context: ACCOUNT });
    fake
      .setStripeEvent(delivery.eventId!, {
        type: 'v1.payment_intent.succeeded',
        data: { amount: 2500 },
      })
      .setStripeAccount(delivery.eventId!, ACCOUNT)
      .setPayment('stripe', pi, { status: 'succeeded', amount: 2500, currency: 'eur' })
      .setStripeAccount(pi, ACCOUNT);

    // NOTE: the official SDK takes these same bytes as an event notification.
    const parsed = new Stripe('sk_test_unused').parseEventNotification(
      delivery.body,
      delivery.headers['stripe-signature'],
      THIN_SECRET,
    );
    expect(parsed.id).toBe(delivery.eventId);

    expect((await client.send('stripe-thin', delivery)).status).toBe(200);
    const row = await settledRow('stripe-thin', delivery.eventId!);
    expect({
      status: row.status,
      type: row.type,
      nativeType: row.nativeType,
      paymentRef: row.paymentRef,
      rawBody: row.rawBody,
    }).toEqual({
      status: 'processed',
      type: 'payment.succeeded',
      nativeType: 'v1.payment_intent.succeeded',
      paymentRef: pi,
      rawBody: delivery.body,
    });

    expect((await client.send('stripe-thin', delivery)).status).toBe(200);
    await eventually(async () => (await countEffects(app, delivery.eventId!)) === 1);
    expect(SEEN).toEqual([
      {
        eventId: delivery.eventId,
        endpoint: 'stripe-thin',
        verified: undefined,
        event: {
          id: delivery.eventId,
          object: 'v2.core.event',
          type: 'v1.payment_intent.succeeded',
          data: { amount: 2500 },
        },
        related: {
          id: pi,
          object: 'payment_intent',
          status: 'succeeded',
          amount: 2500,
          currency: 'eur',
        },
      },
    ]);
    const lookups = [
      ...stripeRequests(`/v2/core/events/${delivery.eventId}`),
      ...stripeRequests(`/v1/payment_intents/${pi}`),
    ];
    expect(lookups.map((request) => request.headers['stripe-context'])).toEqual([ACCOUNT, ACCOUNT]);
  });

  it('fetches the event again on the next attempt, once per attempt', async () => {
    const pi = `pi_retry_${sequence}_${Date.now().toString(36)}`;
    const delivery = notification(aboutPayment(pi));
    control.scripts.set(delivery.eventId!, { failTimes: 1 });
    fake.setStripeEvent(delivery.eventId!, {}).setPayment('stripe', pi, { status: 'succeeded' });

    expect((await client.send('stripe-thin', delivery)).status).toBe(200);
    const row = await settledRow('stripe-thin', delivery.eventId!);

    expect([row.status, row.attempts]).toEqual(['processed', 2]);
    expect(stripeRequests(`/v2/core/events/${delivery.eventId}`)).toHaveLength(2);
    expect(stripeRequests(`/v1/payment_intents/${pi}`)).toHaveLength(2);
    expect(
      stripeRequests(`/v2/core/events/${delivery.eventId}`)[0].headers['stripe-context'],
    ).toBeUndefined();
  });

  it('checks a notification with the provider before the handler runs (verifyWithProvider)', async () => {
    const paid = `pi_paid_${sequence}_${Date.now().toString(36)}`;
    const forged = `pi_forged_${sequence}_${Date.now().toString(36)}`;
    fake
      .setPayment('stripe', paid, { status: 'succeeded', amount: 2500, currency: 'eur' })
      .setPayment('stripe', forged, { status: 'canceled' });
    const confirmed = notification(aboutPayment(paid));
    const contradicted = notification(aboutPayment(forged));

    expect((await client.send('stripe-verified', confirmed)).status).toBe(200);
    expect((await client.send('stripe-verified', contradicted)).status).toBe(200);

    const ok = await settledRow('stripe-verified', confirmed.eventId!);
    const refused = await settledRow('stripe-verified', contradicted.eventId!);
    expect([ok.status, ok.providerStatus]).toEqual(['processed', 'succeeded']);
    expect([refused.status, refused.outcome]).toEqual(['processed', 'provider_disagrees']);
    expect(SEEN.map((seen) => [seen.eventId, seen.verified])).toEqual([
      [confirmed.eventId, 'succeeded'],
    ]);
  });

  it('tells a handler of an endpoint without API access why ctx.fetchEvent() cannot work', async () => {
    const delivery = notification(aboutPayment('pi_keyless'));

    expect((await client.send('stripe-keyless', delivery)).status).toBe(200);
    await settledRow('stripe-keyless', delivery.eventId!);

    expect(SEEN).toHaveLength(1);
    expect(SEEN[0].error).toMatch(/Endpoint "stripe-keyless" has no status client/);
    expect(SEEN[0].error).toMatch(/ctx\.fetchEvent\(\)/);
    expect(fake.requests).toEqual([]);
  });

  it('answers a notification nobody handles with 200 and stores it as ignored', async () => {
    const ping = notification({ type: 'v2.core.event_destination.ping' });

    expect((await client.send('stripe-thin', ping)).status).toBe(200);

    const row = await app.dataSource
      .getRepository(WebhookEventEntity)
      .findOneBy({ endpoint: 'stripe-thin', eventId: ping.eventId });
    expect([row?.status, row?.type]).toEqual(['ignored', 'stripe:v2.core.event_destination.ping']);
  });

  it('takes a snapshot event on the same endpoint as before', async () => {
    const pi = `pi_snapshot_${sequence}_${Date.now().toString(36)}`;
    const body = JSON.stringify({
      id: `evt_snapshot_${pi}`,
      object: 'event',
      type: 'payment_intent.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: pi, object: 'payment_intent', amount: 2500, currency: 'eur' } },
    });
    const snapshot: SignedDelivery = {
      provider: 'stripe',
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', ...stripeSignature(body, THIN_SECRET) },
    };

    expect((await client.send('stripe-thin', snapshot)).status).toBe(200);
    const row = await settledRow('stripe-thin', `evt_snapshot_${pi}`);

    expect([row.type, row.paymentRef, row.amount]).toEqual(['payment.succeeded', pi, 2500]);
    expect(SEEN[0].error).toMatch(/snapshot event.*event\.payload\.data\.object/);
  });
});
